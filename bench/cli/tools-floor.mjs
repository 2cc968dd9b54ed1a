// The raw floor of `mcpkit tools`: no library. Reads the same config file the CLI is given,
// spawns its one stdio server the way @mcpkit/transport-stdio does (its own session, the
// config file's folder as working directory), writes `initialize`, `notifications/initialized`
// and `tools/list` as NDJSON, prints each tool's name and description, ends the server's
// stdin and waits for it to exit (what a client that leaves nothing behind must do too).
//   node tools-floor.mjs <config.json>
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const file = path.resolve(process.argv[2]);
const [[name, server]] = Object.entries(JSON.parse(readFileSync(file, 'utf8')).mcpServers);
const child = spawn(server.command, server.args ?? [], {
  cwd: path.dirname(file),
  env: { PATH: process.env.PATH, HOME: process.env.HOME },
  stdio: ['pipe', 'pipe', 'ignore'],
  detached: true,
});
const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const waiting = new Map();
const request = (id, method, params) =>
  new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ id, method, params });
  });
let buffered = '';
child.stdout.on('data', (chunk) => {
  buffered += chunk.toString();
  for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  }
});
const exited = new Promise((resolve) => child.once('exit', resolve));

await request(1, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'bench-floor', version: '1.0.0' },
});
send({ method: 'notifications/initialized' });
const { result } = await request(2, 'tools/list', {});
let out = `${name} (${result.tools.length} tools)\n`;
for (const tool of result.tools) out += `  ${tool.name}  ${tool.description ?? ''}\n`;
process.stdout.write(out);
child.stdin.end();
await exited;
