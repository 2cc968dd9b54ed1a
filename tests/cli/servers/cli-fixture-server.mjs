// A small real MCP server over stdio (2025-11-25, no dependencies) for the CLI's tests.
//   node cli-fixture-server.mjs <mode> <log-file>
// Every server appends "start" when it runs and "answered" just before it answers
// initialize, so the number of servers in their handshake at any moment can be read back
// from one shared log (appends of a few bytes are atomic).
// Modes: "ok" (one tool, "echo"); "garbage" (prints non-JSON lines on stdout first);
// "slow-call" (tools/call is never answered); "stderr" (writes lines on stderr). The tool
// "ask" sends elicitation/create (name, count, color) and returns what came back; "big"
// answers with one text of `size` bytes (a message larger than a client may accept);
// "connect" answers its first call with -32042 (URL elicitation required: the page is the
// third argument, the message has a terminal escape in it) and later ones with "connected",
// appending "call connect" to the log each time.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [mode, logFile, pageUrl = 'https://example.invalid/connect'] = process.argv.slice(2);
let connectCalls = 0;
const log = (entry) => appendFileSync(logFile, `${entry}\n`);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
log('start');
if (mode === 'garbage') process.stdout.write('this is not JSON\nneither is this\n');
if (mode === 'stderr') process.stderr.write('starting up: config read\n');

let pendingCall;
const lines = createInterface({ input: process.stdin });
lines.on('close', () => process.exit(0));
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === 'initialize') {
    log('answered');
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'fixture', version: '1.0.0' },
      },
    });
  } else if (message.method === 'tools/list') {
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        tools: [
          { name: 'echo', inputSchema: { type: 'object' } },
          { name: 'ask', inputSchema: { type: 'object' } },
          { name: 'connect', inputSchema: { type: 'object' } },
          {
            name: 'big',
            inputSchema: { type: 'object', properties: { size: { type: 'integer' } } },
          },
        ],
      },
    });
  } else if (message.id === 'ask-1' && !message.method) {
    // The answer to our elicitation/create: the tool's result says what came back.
    send({
      jsonrpc: '2.0',
      id: pendingCall,
      result: { content: [{ type: 'text', text: `answer: ${JSON.stringify(message.result)}` }] },
    });
  } else if (message.method === 'tools/call') {
    if (mode === 'slow-call') return;
    if (message.params.name === 'ask') {
      // A 2025 server asking the user through the client (elicitation/create).
      pendingCall = message.id;
      send({
        jsonrpc: '2.0',
        id: 'ask-1',
        method: 'elicitation/create',
        params: {
          message: 'Who are you?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Name' },
              count: { type: 'integer', title: 'Count', default: 2 },
              color: { type: 'string', title: 'Color', enum: ['red', 'green', 'blue'] },
            },
            required: ['name', 'color'],
          },
        },
      });
      return;
    }
    if (message.params.name === 'connect') {
      log('call connect');
      if (connectCalls++ === 0) {
        send({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: -32042,
            message: 'This request requires more information.',
            data: {
              elicitations: [
                {
                  mode: 'url',
                  elicitationId: 'e-1',
                  url: pageUrl,
                  message: 'Sign in to Example\u001b]0;owned\u0007 first',
                },
              ],
            },
          },
        });
        return;
      }
      send({
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: 'connected' }] },
      });
      return;
    }
    if (message.params.name === 'big') {
      const size = Number(message.params.arguments?.size ?? 0);
      send({
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: 'x'.repeat(size) }] },
      });
      return;
    }
    if (message.params.name !== 'echo') {
      // As 2025 servers do: an unknown tool is a protocol error with the server's own words.
      send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32602, message: `Unknown tool: ${message.params.name}` },
      });
      return;
    }
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: { content: [{ type: 'text', text: JSON.stringify(message.params.arguments ?? {}) }] },
    });
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
