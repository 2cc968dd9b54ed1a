// A tiny real MCP server over stdio (no dependencies) for the CLI's hostile tests.
//   node cli-tiny-server.mjs <mode> <log-file> [tag]
// Modes: "no-init" never answers initialize (a hang during connect); "hang-call" answers
// initialize and tools/list, never tools/call. Every message received is appended to the
// log file as one JSON line, so a test can wait for what the server saw.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [mode, logFile] = process.argv.slice(2);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const log = (entry) => appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
log({ started: process.pid });

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  log({ method: message.method, id: message.id, params: message.params });
  if (message.method === 'initialize') {
    if (mode === 'no-init') return;
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
  }
  // tools/call: never answered.
});
