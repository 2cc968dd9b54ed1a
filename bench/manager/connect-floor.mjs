// The raw floor of connect-all: spawn each server, write `initialize` as NDJSON, wait for
// its result, write `notifications/initialized`. No MCP library, no validation, no
// probe; the same pool rule as the others (a slot frees the moment its server answers).
import { spawn } from 'node:child_process';
import { serverEnvironment } from './server-env.mjs';

const initialize = (id) =>
  `${JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench-floor', version: '1.0.0' },
    },
  })}\n`;
const initialized = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;

function connectOne(command, args) {
  // The environment @mcpkit/transport-stdio gives its servers (see server-env.mjs).
  const env = serverEnvironment();
  // Spawned the way @mcpkit/transport-stdio spawns: its own process group (session). On a
  // Linux with scheduler autogroups (this VM) a new session is scheduled as its own group,
  // which under load makes a start much faster; the floor must not lose by that alone.
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], env, detached: true });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk.toString();
      const nl = buffered.indexOf('\n');
      if (nl === -1) return;
      const answer = JSON.parse(buffered.slice(0, nl));
      child.stdout.off('data', onData);
      if (!answer.result) return reject(new Error(`initialize failed: ${buffered.slice(0, nl)}`));
      child.stdin.write(initialized);
      resolve(child);
    };
    child.stdout.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before answering`)));
    child.stdin.write(initialize(1));
  });
}

/** Connects `count` servers, `concurrency` at a time; resolves when all have answered. */
export async function connectAll({ command, args, count, concurrency }) {
  const children = [];
  let next = 0;
  async function lane() {
    while (next < count) {
      next++;
      children.push(await connectOne(command, args));
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return {
    connected: children.length,
    async close() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise((resolve) => {
              child.removeAllListeners('exit');
              child.once('exit', resolve);
              child.stdin.end();
            }),
        ),
      );
    },
  };
}
