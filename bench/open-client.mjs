// Opens a bench client by name for the profiling and interleaved scripts: a stdio client
// gets the NDJSON echo server, an `http-*` client gets its own HTTP echo server process
// (as worker.mjs does). `name@dir` loads `<dir>/<name>.mjs` instead of `clients/<name>.mjs`
// (another build's client, to compare two builds in one process).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = path.dirname(fileURLToPath(import.meta.url));

function httpEchoServer() {
  const server = spawn(process.execPath, [path.join(bench, 'servers/http-echo-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = new Promise((resolve, reject) => {
    server.once('error', reject);
    server.stdout.on('data', (c) => {
      const m = /PORT (\d+)/.exec(c.toString());
      if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
    });
  });
  return { server, url };
}

/** Returns `{ call, close }`; `close` also ends the HTTP server it started. */
export async function openClient(name) {
  const [file, dir] = name.split('@');
  const { open } = await import(dir ? `${dir}/${file}.mjs` : `${bench}/clients/${file}.mjs`);
  if (!file.startsWith('http-'))
    return open(process.execPath, [path.join(bench, 'servers/echo-server.mjs')], {});
  const { server, url } = httpEchoServer();
  const c = await open(await url);
  return {
    call: c.call,
    close: async () => {
      await c.close();
      server.kill('SIGTERM');
    },
  };
}

/**
 * Makes `total` echo calls through a client opened by `openClient`, `inFlight` at a time,
 * each answer checked.
 */
export async function callEcho(c, total, inFlight = 64) {
  let sent = 0;
  async function lane() {
    while (sent < total) {
      const i = sent++;
      const r = await c.call({ text: `m${i}` });
      if (r.content[0].text !== `m${i}`) throw new Error('wrong answer');
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane));
}
