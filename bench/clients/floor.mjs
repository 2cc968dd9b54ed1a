// The raw floor: a plain Node parent and child exchanging NDJSON with
// JSON.stringify/JSON.parse. No MCP, no validation, no handshake.
import { spawn } from 'node:child_process';

export async function open(command, args, { detached = false } = {}) {
  // The same minimal environment the MCP clients give their servers.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env, detached });
  const pending = new Map();
  let nextId = 1;
  let parts = [];
  let size = 0;
  child.stdout.on('data', (chunk) => {
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl !== -1) {
      parts.push(chunk.subarray(start, nl));
      const line =
        parts.length === 1
          ? parts[0].toString()
          : Buffer.concat(parts, size + nl - start).toString();
      parts = [];
      size = 0;
      const msg = JSON.parse(line);
      const resolve = pending.get(msg.id);
      pending.delete(msg.id);
      resolve(msg.result);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
    }
  });
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  // Connected means answered once: one raw round trip (the floor of a handshake).
  await new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: {} })}\n`,
    );
  });
  return {
    call(args) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: args } })}\n`,
        );
      });
    },
    async close() {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}
