import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  killLeftovers,
  processesWith,
  type RecordingServer,
  recordingServer,
  type Sandbox,
  sandbox,
  serversDir,
  startCli,
  Tmux,
  waitFor,
} from './cli-harness.js';

/**
 * Finding 5 of issue #10: Ctrl-C, SIGTERM and SIGHUP used to end the CLI in milliseconds
 * without closing its transports, leaving every server (and what each started) running
 * under PID 1. Each server here is `sh -c 'sleep 120.N & exec node server'`: the CLI must
 * take down the server and its `sleep` child, then exit 130, 143 or 129.
 */
const tiny = path.join(serversDir, 'cli-tiny-server.mjs');

let box: Sandbox;
let tmux: Tmux | undefined;
let http: RecordingServer | undefined;
let marker = '';

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  await http?.close();
  http = undefined;
  if (marker) killLeftovers(marker);
  marker = '';
  box?.[Symbol.dispose]();
});

/** A config of `count` stdio servers in `mode`, each with a `sleep` child. */
function setup(count: number, mode: 'no-init' | 'hang-call') {
  box = sandbox();
  // The sleep's duration is the marker: `sleep 120.NNNNNN` is unique to this test.
  const sleep = `120.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  // Every server's command line names its log in here (the tmux server's names box.dir).
  const logDir = path.join(box.dir, 'logs');
  mkdirSync(logDir);
  marker = logDir;
  const mcpServers: Record<string, unknown> = {};
  for (let i = 1; i <= count; i++) {
    const log = path.join(logDir, `s${i}.log`);
    mcpServers[`s${i}`] = {
      command: 'sh',
      args: ['-c', `sleep ${sleep} & exec node ${tiny} ${mode} ${log}`],
    };
  }
  const config = box.file('servers.json', { mcpServers });
  const logs = Array.from({ length: count }, (_, i) => path.join(logDir, `s${i + 1}.log`));
  const sleeps = () => processesWith(`sleep ${sleep}`);
  const everything = () => [...sleeps(), ...processesWith(marker)];
  return { config, logs, sleeps, everything };
}

const logOf = (file: string): Array<Record<string, unknown>> =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

/** How many servers got a request (each logs what it receives). */
const started = (logs: string[]): number =>
  logs.filter((l) => logOf(l).some((m) => m.method)).length;

const cli = (...args: string[]) => [process.execPath, bin, ...args];

describe('mcpkit on SIGINT, SIGTERM and SIGHUP: no server is orphaned', () => {
  it('Ctrl-C in a terminal while 5 servers are connecting (3 at a time) closes every server and its children, exit 130', async () => {
    const { config, logs, sleeps, everything } = setup(5, 'no-init');
    tmux = new Tmux(box, box.env);
    tmux.start(cli('--strict-config', '-c', config, 'tools'));
    // Connecting: every server got the first request of the handshake (and never answers).
    // The manager starts 3 local servers at a time: the first batch hangs in its handshake.
    await waitFor(() => started(logs) === 3, 'a request on the first 3 servers');
    expect(sleeps()).toHaveLength(3);
    tmux.sendKeys('C-c');
    const status = await waitFor(() => tmux!.exitStatus(), 'the CLI to exit');
    expect(status).toBe(130);
    expect(tmux.screen()).toContain('SIGINT: closing 3 connections');
    expect(everything()).toEqual([]);
    // The 2 still waiting for a slot were never started after the signal.
    expect(started(logs)).toBe(3);
  });

  it('Ctrl-C in a terminal during a hanging tools/call cancels the request, closes the server, exit 130', async () => {
    const { config, logs, sleeps, everything } = setup(1, 'hang-call');
    tmux = new Tmux(box, box.env);
    tmux.start(cli('--strict-config', '-c', config, 'call', 's1', 'hang'));
    const call = await waitFor(
      () => logOf(logs[0]!).find((m) => m.method === 'tools/call'),
      'the tools/call',
    );
    expect(sleeps()).toHaveLength(1);
    tmux.sendKeys('C-c');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(130);
    expect(everything()).toEqual([]);
    const cancelled = logOf(logs[0]!).find((m) => m.method === 'notifications/cancelled');
    expect(cancelled?.params).toMatchObject({ requestId: call.id });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s while 5 servers are connecting (3 at a time) closes every server and its children, exit %d',
    async (signal, code) => {
      const { config, logs, sleeps, everything } = setup(5, 'no-init');
      const run = startCli(['--strict-config', '-c', config, 'servers'], {
        env: box.env,
        cwd: box.cwd,
      });
      await waitFor(() => started(logs) === 3, 'a request on the first 3 servers');
      expect(sleeps()).toHaveLength(3);
      run.child.kill(signal);
      const result = await run.done;
      expect(result.code).toBe(code);
      expect(result.stderr).toContain(`${signal}: closing 3 connections`);
      expect(everything()).toEqual([]);
      expect(started(logs)).toBe(3);
    },
  );

  it('a second Ctrl-C kills at once while a close hangs (an HTTP server that never answers its session DELETE), exit 130', async () => {
    const { config: stdioConfig, logs, sleeps, everything } = setup(2, 'no-init');
    // A Streamable HTTP server that opens a session, then never answers tools/list or DELETE;
    // the stdio servers hang in connect.
    http = await recordingServer((req, res, body) => {
      const message = body ? JSON.parse(body) : undefined;
      if (req.method === 'POST' && message?.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'hang-1' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'hang-http', version: '1' },
            },
          }),
        );
      } else if (req.method === 'POST' && message?.id === undefined) res.writeHead(202).end();
      else if (req.method === 'POST' && message?.method !== 'tools/list') {
        // server/discover and the rest: a server of the initialize era.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message?.id ?? null,
            error: { code: -32601, message: 'Method not found' },
          }),
        );
      } else if (req.method === 'GET') res.writeHead(405).end();
      // tools/list and DELETE: no answer, ever.
    });
    const servers = JSON.parse(readFileSync(stdioConfig, 'utf8')).mcpServers;
    servers.web = { type: 'http', url: `${http.url}/mcp` };
    const config = box.file('mixed.json', { mcpServers: servers });
    tmux = new Tmux(box, box.env);
    tmux.start(cli('--strict-config', '-c', config, 'tools'));
    await waitFor(
      () =>
        logs.every((l) => logOf(l).some((m) => m.method)) &&
        http!.requests.some((r) => r.body.includes('notifications/initialized')),
      'a request on the stdio servers and a session with the HTTP one',
    );
    expect(sleeps()).toHaveLength(2);
    tmux.sendKeys('C-c');
    await waitFor(
      () => http!.requests.some((r) => r.method === 'DELETE'),
      'the DELETE that closes the session',
    );
    tmux.sendKeys('C-c');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(130);
    expect(tmux.screen()).toContain('SIGINT again: killing every server now');
    expect(everything()).toEqual([]);
  });

  it('a second Ctrl-C during a hanging call: the first sends notifications/cancelled and starts closing, the second kills at once, exit 130, nothing left', async () => {
    box = sandbox();
    marker = box.dir;
    // A Streamable HTTP server (2025 era) that never answers tools/call nor the DELETE
    // that ends its session: the call hangs, and so does the close after the first Ctrl-C.
    http = await recordingServer((req, res, body) => {
      const message = body ? JSON.parse(body) : undefined;
      const answer = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'hang-2' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (req.method === 'GET') res.writeHead(405).end();
      else if (req.method !== 'POST' || message?.method === 'tools/call') return;
      else if (message?.id === undefined) res.writeHead(202).end();
      else if (message.method === 'initialize')
        answer({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'hang-call', version: '1' },
        });
      else if (message.method === 'tools/list')
        answer({ tools: [{ name: 'hang', inputSchema: { type: 'object' } }] });
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: 'Method not found' },
          }),
        );
      }
    });
    const config = box.file('hang-call.json', {
      mcpServers: { web: { type: 'http', url: `${http.url}/mcp` } },
    });
    const posted = () =>
      http!.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body));
    tmux = new Tmux(box, box.env);
    tmux.start(cli('--strict-config', '-c', config, 'call', 'web', 'hang'));
    const call = await waitFor(
      () => posted().find((m) => m.method === 'tools/call'),
      'the tools/call',
    );
    tmux.sendKeys('C-c');
    const cancelled = await waitFor(
      () => posted().find((m) => m.method === 'notifications/cancelled'),
      'the cancellation',
    );
    expect(cancelled.params).toMatchObject({ requestId: call.id });
    await waitFor(
      () => http!.requests.some((r) => r.method === 'DELETE'),
      'the DELETE that closes the session (never answered)',
    );
    expect(tmux.screen()).toContain('SIGINT: closing 1 connection');
    tmux.sendKeys('C-c');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(130);
    const screen = tmux.screen();
    expect(screen).toContain('SIGINT again: killing every server now');
    expect(screen).not.toContain('did not close within');
    // The CLI is gone (the tmux server and its shell also name the config: not counted).
    expect(processesWith(config).filter((p) => !/^(tmux|bash) /.test(p.cmdline))).toEqual([]);
  });
});
