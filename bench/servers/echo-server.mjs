// The benchmark's server: just enough MCP over NDJSON (initialize, tools/call), written
// by hand so that the client, not the server, is what gets measured.
// tools/call arguments: { text } echoes the text; { bytes } returns that many bytes of text.
const out = process.stdout;
const bigBodies = new Map();

function bigBody(bytes) {
  let body = bigBodies.get(bytes);
  if (!body) {
    body = `{"content":[{"type":"text","text":"${'x'.repeat(bytes)}"}]}`;
    bigBodies.set(bytes, body);
  }
  return body;
}

const INIT = JSON.stringify({
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'bench-echo', version: '1.0.0' },
});

function handle(msg) {
  if (msg.id === undefined) return;
  const id = JSON.stringify(msg.id);
  if (msg.method === 'initialize') {
    const requested = msg.params?.protocolVersion;
    const init = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].includes(requested)
      ? INIT.replace('2025-11-25', requested)
      : INIT;
    out.write(`{"jsonrpc":"2.0","id":${id},"result":${init}}\n`);
  } else if (msg.method === 'tools/call') {
    const args = msg.params?.arguments ?? {};
    const body =
      args.bytes !== undefined
        ? bigBody(args.bytes)
        : JSON.stringify({ content: [{ type: 'text', text: String(args.text ?? '') }] });
    out.write(`{"jsonrpc":"2.0","id":${id},"result":${body}}\n`);
  } else if (msg.method === 'tools/list') {
    out.write(
      `{"jsonrpc":"2.0","id":${id},"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}\n`,
    );
  } else if (msg.method === 'ping') {
    out.write(`{"jsonrpc":"2.0","id":${id},"result":{}}\n`);
  } else {
    out.write(
      `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}\n`,
    );
  }
}

let parts = [];
process.stdin.on('data', (chunk) => {
  let start = 0;
  let nl = chunk.indexOf(10, start);
  while (nl !== -1) {
    parts.push(chunk.subarray(start, nl));
    const line = parts.length === 1 ? parts[0].toString() : Buffer.concat(parts).toString();
    parts = [];
    if (line.trim()) handle(JSON.parse(line));
    start = nl + 1;
    nl = chunk.indexOf(10, start);
  }
  if (start < chunk.length) parts.push(chunk.subarray(start));
});
process.stdin.on('end', () => process.exit(0));
