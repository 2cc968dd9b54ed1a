import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { runShellPiped } from './support/shell-piped.js';

/**
 * `--trace <file>`: every JSON-RPC message as a JSON line, as sent and received (a server's
 * data is not searched for config values; tests/hostile/data-is-data checks an HTTP
 * entry's header value never reaches it).
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

describe('mcpkit --trace', () => {
  it('writes each message sent and received (time, server, direction, size, message), 0600, as they were', async () => {
    box = sandbox('mcpkit-cli-trace-');
    const secret = 'trace-secret-value-99';
    const config = box.file('servers.json', {
      mcpServers: {
        fx: {
          command: process.execPath,
          args: [fixture, 'ok', path.join(box.dir, 'fx.log')],
          env: { TOKEN: secret },
        },
      },
    });
    const file = path.join(box.dir, 'trace.jsonl');
    const r = await runCli(
      [
        '--strict-config',
        '-c',
        config,
        '--trace',
        file,
        'call',
        'fx',
        'echo',
        JSON.stringify({ t: secret }),
      ],
      { env: box.env, cwd: box.cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const sent = lines.find((l) => l.direction === 'send' && l.message.method === 'tools/call');
    // What the user typed is what was sent, though an env value of the entry is the same
    // string: a message is not searched for config values.
    expect(sent).toMatchObject({ server: 'fx', message: { params: { arguments: { t: secret } } } });
    expect(sent.size).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(sent.time))).toBe(false);
    const answer = lines.find((l) => l.direction === 'receive' && l.message.id === sent.message.id);
    expect(answer.message.result.content[0].text).toContain(secret);
    expect(answer.message.result.content[0].text).not.toContain('***');
    expect(lines.some((l) => l.direction === 'send' && l.message.method === 'initialize')).toBe(
      true,
    );
  });

  it('shell and doctor honour --trace (they ignored it): the messages of each are in the file', async () => {
    box = sandbox('mcpkit-cli-trace-shell-doctor-');
    const config = box.file('servers.json', {
      mcpServers: {
        fx: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      },
    });
    const read = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));

    const shellTrace = path.join(box.dir, 'shell.jsonl');
    const shell = await runShellPiped(
      ['--strict-config', '-c', config, '--trace', shellTrace, 'shell'],
      'call fx echo {"from": "shell"}\n',
      { env: box.env, cwd: box.cwd },
    );
    expect(shell.code, shell.stderr).toBe(0);
    const shellLines = read(shellTrace);
    expect(
      shellLines.find((l) => l.direction === 'send' && l.message.method === 'tools/call'),
    ).toMatchObject({ server: 'fx', message: { params: { arguments: { from: 'shell' } } } });

    const doctorTrace = path.join(box.dir, 'doctor.jsonl');
    const doctor = await runCli(
      ['--strict-config', '-c', config, '--trace', doctorTrace, 'doctor'],
      {
        env: box.env,
        cwd: box.cwd,
      },
    );
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const doctorLines = read(doctorTrace);
    const ping = doctorLines.find((l) => l.direction === 'send' && l.message.method === 'ping');
    expect(ping).toMatchObject({ server: 'fx' });
    expect(
      doctorLines.some((l) => l.direction === 'receive' && l.message.id === ping.message.id),
    ).toBe(true);
  });
});
