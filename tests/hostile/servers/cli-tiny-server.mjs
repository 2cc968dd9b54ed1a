// A tiny real MCP server over stdio (no dependencies) for the CLI's hostile tests.
//   node cli-tiny-server.mjs <mode> <log-file> [tag]
// Modes: "no-init" answers nothing (a hang during connect); "hang-call" speaks 2025-11-25
// (initialize, tools/list), never answers tools/call. Every message received is appended to the
// log file as one JSON line, so a test can wait for what the server saw.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [mode, logFile] = process.argv.slice(2);
if (mode === 'hang-call') {
  // Like servers that shut down cleanly: signals are ignored, the end of stdin ends it. So
  // whatever the client wrote before closing (a cancellation) is read and logged first.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
}
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const log = (entry) => appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
log({ started: process.pid });

const lines = createInterface({ input: process.stdin });
lines.on('close', () => process.exit(0));
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  log({ method: message.method, id: message.id, params: message.params });
  if (mode === 'no-init') return;
  if (message.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'tiny', version: '1.0.0' },
      },
    });
  } else if (message.method === 'tools/list') {
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: { tools: [{ name: 'hang', inputSchema: { type: 'object' } }] },
    });
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  } else if (message.method === 'tools/call') {
    // Never answered.
  } else if (message.id !== undefined) {
    // server/discover and the rest: this server is of the initialize era.
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
