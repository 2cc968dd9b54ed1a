// A small real MCP server over stdio (2025-11-25, no dependencies) for the shell's tests.
//   node shell-list-changed-server.mjs <log-file>
// Its tool "grow" adds a tool ("grown-1", "grown-2", …) and sends
// notifications/tools/list_changed, as servers whose tools depend on what was done do.
// Each message received is appended to the log file as one JSON line.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [logFile] = process.argv.slice(2);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let grown = 0;
const tools = () => [
  { name: 'grow', description: 'adds a tool', inputSchema: { type: 'object' } },
  ...Array.from({ length: grown }, (_, i) => ({
    name: `grown-${i + 1}`,
    inputSchema: { type: 'object' },
  })),
];

const lines = createInterface({ input: process.stdin });
lines.on('close', () => process.exit(0));
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  appendFileSync(logFile, `${JSON.stringify(message)}\n`);
  if (message.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'growing', version: '1.0.0' },
      },
    });
  } else if (message.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: message.id, result: { tools: tools() } });
  } else if (message.method === 'tools/call') {
    if (message.params.name === 'grow') {
      grown += 1;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    }
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: { content: [{ type: 'text', text: `called ${message.params.name}` }] },
    });
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  } else if (message.id !== undefined && message.method) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
