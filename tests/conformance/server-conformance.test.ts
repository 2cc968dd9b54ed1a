import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { describeServerRuns } from './server-runs.js';

/**
 * The official conformance runner's *server* scenarios against a fixture built on
 * @mcpkit/server alone (tests/fixtures/conformance-server.mjs, run from the built dist on
 * this Node 20); the runs and the expected set are server-runs.ts's.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '../fixtures/conformance-server.mjs');

let server: ChildProcess;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [fixture, 'http'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  server.stdout!.setEncoding('utf8');
  url = await new Promise<string>((resolve, reject) => {
    server.once('exit', (code) =>
      reject(new Error(`fixture exited (${code}) before listening: ${out}`)),
    );
    server.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
});

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
});

describeServerRuns({ title: 'official server conformance', url: () => url });
