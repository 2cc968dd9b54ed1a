// The SDK v1 proxy of the gateway benchmark, facing its caller over Streamable HTTP: one SDK v1
// Client (stdio, to the backend) and, per HTTP session, an SDK v1 Server on the SDK's
// StreamableHTTPServerTransport, on a plain node:http server bound to 127.0.0.1. Answers are
// JSON (enableJsonResponse), as the gateway answers a plain call, so both send the same bytes.
// Prints "PORT <n>" on stdout once listening. Usage: node sdk-v1-proxy-http.mjs <command> [args...]
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const backend = new Client({ name: 'sdk-proxy', version: '1.0.0' });
await backend.connect(new StdioClientTransport({ command, args }));

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

function newSession() {
  const server = new Server(
    { name: 'sdk-proxy', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => backend.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    backend.callTool(request.params, undefined, { signal: extra.signal }),
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  void server.connect(transport);
  return transport;
}

const http = createServer((req, res) => {
  if (req.url?.split('?', 1)[0] !== '/mcp') return void res.writeHead(404).end();
  const id = req.headers['mcp-session-id'];
  const transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (transport) return void transport.handleRequest(req, res);
  if (id !== undefined) return void res.writeHead(404).end();
  // No session yet: only an initialize POST opens one (the transport checks that).
  void newSession().handleRequest(req, res);
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${http.address().port}\n`));

const stop = async () => {
  http.closeAllConnections();
  http.close();
  await backend.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
