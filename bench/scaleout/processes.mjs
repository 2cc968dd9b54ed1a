// The child processes of the scale-out benches (run.mjs, load.mjs): a real redis-server on a
// unix socket, and the wait for a child's "ready" line.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureRedis } from '../../scripts/ensure-redis.mjs';

/** Resolves with `ready`'s match once the child printed it (stdout or stderr). */
export function waitOutput(child, ready, what) {
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (c) => {
      out += c;
      const m = ready.exec(out);
      if (m) resolve(m);
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${code ?? signal}): ${out}`)),
    );
  });
}

/** SIGTERM, resolved once the child exited. */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** redis-server in `dir` (which the caller removes), on a unix socket, saving nothing. */
export async function startRedis(dir) {
  const binary = ensureRedis();
  if (!binary) throw new Error('redis-server is missing');
  const socket = path.join(dir, 'redis.sock');
  const child = spawn(
    binary,
    ['--port', '0', '--unixsocket', socket, '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitOutput(child, /ready to accept connections/i, 'redis-server');
  const cli = path.join(path.dirname(binary), 'redis-cli');
  const run = (...args) =>
    spawnSync(cli, ['-s', socket, ...args], { encoding: 'utf8' }).stdout ?? '';
  const field = (text, name) => Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(text)?.[1] ?? 0);
  return {
    socket,
    pid: child.pid,
    memory: () => field(run('info', 'memory'), 'used_memory'),
    keys: () => Number(/keys=(\d+)/.exec(run('info', 'keyspace'))?.[1] ?? 0),
    /** Calls of each command so far (`INFO commandstats`; a script's own commands included). */
    commands: () =>
      Object.fromEntries(
        [...run('info', 'commandstats').matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)].map((m) => [
          m[1],
          Number(m[2]),
        ]),
      ),
    flush: () => run('flushall'),
    close: () => stop(child),
  };
}
