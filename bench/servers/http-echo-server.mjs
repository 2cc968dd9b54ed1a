// The HTTP benchmark's server: Streamable HTTP reduced to JSON answers (no streams, no
// standalone GET), hand-written on node:http so that the client is what gets measured.
// Prints "PORT <n>" on stdout once listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const INIT = (version) =>
  JSON.stringify({
    protocolVersion: version,
    capabilities: { tools: {} },
    serverInfo: { name: 'bench-http', version: '1.0.0' },
  });

const server = createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(405).end();
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const msg = JSON.parse(
      parts.length === 1 ? parts[0].toString() : Buffer.concat(parts).toString(),
    );
    if (msg.id === undefined || msg.method === undefined) return void res.writeHead(202).end();
    const id = JSON.stringify(msg.id);
    let body;
    const headers = { 'content-type': 'application/json' };
    if (msg.method === 'initialize') {
      headers['mcp-session-id'] = randomUUID();
      body = `{"jsonrpc":"2.0","id":${id},"result":${INIT(msg.params?.protocolVersion ?? '2025-11-25')}}`;
    } else if (msg.method === 'tools/call') {
      body = `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify({ content: [{ type: 'text', text: String(msg.params?.arguments?.text ?? '') }] })}}`;
    } else {
      body = `{"jsonrpc":"2.0","id":${id},"result":{}}`;
    }
    res.writeHead(200, headers).end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
