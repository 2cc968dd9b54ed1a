import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { describeServerRuns } from './server-runs.js';

/**
 * The official conformance runner's *server* scenarios through `mcpkit serve --http
 * --no-prefix` (the built CLI) in front of the @mcpkit/server conformance fixture over
 * stdio: the same runs and the same expected set as server-conformance.test.ts (server-runs.ts:
 * every non-extension server scenario the runner lists; no expected-failures list).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '../fixtures/conformance-server.mjs');
const cli = path.join(here, '../../apps/cli/dist/bin.js');

let gateway: ChildProcess;
let url: string;
let home: string;
/** The gateway's stderr, shown when a run fails. */
let gatewayErr = '';

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'mcpkit-gateway-conformance-'));
  const config = {
    mcpServers: {
      conformance: {
        command: process.execPath,
        args: [fixture, 'stdio'],
        // test_reconnection runs 500 ms: well past the gateway's --sse-poll-ms 50.
        env: { CONFORMANCE_RECONNECT_MS: '500' },
      },
    },
  };
  gateway = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--http',
      '127.0.0.1:0',
      // The runner sends no Authorization header: an explicit no-token loopback bind (the
      // gateway's authentication is tested in tests/gateway/gateway-http-face.test.ts).
      '--no-auth',
      '--no-prefix',
      // SEP-1699 through the gateway: a tool call still running after 50 ms has its SSE stream
      // closed and the client resumes.
      '--sse-poll-ms',
      '50',
      '-c',
      JSON.stringify(config),
      '--strict-config',
    ],
    { stdio: ['ignore', 'inherit', 'pipe'], env: { PATH: process.env.PATH, HOME: home } },
  );
  let err = '';
  gateway.stderr!.setEncoding('utf8');
  url = await new Promise<string>((resolve, reject) => {
    gateway.once('exit', (code) =>
      reject(new Error(`gateway exited (${code}) before listening: ${err}`)),
    );
    gateway.stderr!.on('data', (chunk: string) => {
      err += chunk;
      gatewayErr = err.slice(-4000);
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
  });
}, 60_000);

afterAll(async () => {
  if (gateway.exitCode === null && gateway.signalCode === null) {
    const exited = once(gateway, 'exit');
    gateway.kill('SIGTERM');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

describeServerRuns({
  title: 'server conformance through mcpkit serve --no-prefix',
  url: () => url,
  diagnostics: () => `gateway stderr:\n${gatewayErr}`,
});
