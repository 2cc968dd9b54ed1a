// A small real MCP server (no dependencies) that sends JSON nested too deep to walk
// recursively: `depth` arrays inside one another, written as text, since JSON.stringify
// itself would overflow the stack building it. Usage:
//   node deep-json-server.mjs <mode> <depth>          over stdio
//   node deep-json-server.mjs <mode> <depth> --http   Streamable HTTP on 127.0.0.1:0; prints
//                                                     its URL on stdout, stops when stdin ends
// Modes:
//   schema        tools/list has a tool whose inputSchema holds the deep value (and a
//                 shallow one); after the first tools/list it sends tools/list_changed
//   schema-later  tools/list is shallow until the tool "deepen" is called: then it turns
//                 deep and the server sends tools/list_changed
//   calls         shallow lists; the deep value comes in the result of tools/call
//                 "deep-result", in the contents of resources/read "deep://resource", and in
//                 the params of a notifications/message sent before the answer to
//                 tools/call "deep-notify"
import { createServer } from 'node:http';

const [mode = 'schema', depthText = '1000', transport] = process.argv.slice(2);
const depth = Number(depthText);
const deep = '['.repeat(depth) + ']'.repeat(depth);

let deepList = mode === 'schema';
let listedOnce = false;

const shallowTools = () => {
  const tools = [
    { name: 'echo', description: 'Echoes its input.', inputSchema: { type: 'object' } },
  ];
  if (mode === 'schema-later')
    tools.push({
      name: 'deepen',
      description: 'Turns the list deep.',
      inputSchema: { type: 'object' },
    });
  if (mode === 'calls')
    tools.push(
      { name: 'deep-result', description: 'A deep result.', inputSchema: { type: 'object' } },
      { name: 'deep-notify', description: 'A deep notification.', inputSchema: { type: 'object' } },
    );
  return tools;
};

const response = (id, result) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
const toolResult = (text) => JSON.stringify({ content: [{ type: 'text', text }] });

const listChanged = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';

/** The lines to send for one incoming message, in order (empty for a notification). */
function answer(message) {
  const { id, method, params } = message;
  if (id === undefined) return [];
  switch (method) {
    case 'initialize':
      return [
        response(
          id,
          JSON.stringify({
            protocolVersion: params?.protocolVersion ?? '2025-06-18',
            capabilities: { tools: { listChanged: true }, resources: {}, logging: {} },
            serverInfo: { name: `deep-json-${mode}`, version: '1.0.0' },
          }),
        ),
      ];
    case 'ping':
      return [response(id, '{}')];
    case 'tools/list': {
      const tools = JSON.stringify(shallowTools());
      const list = deepList
        ? `{"tools":[${tools.slice(1, -1)},{"name":"deep","description":"Deep schema.","inputSchema":{"type":"object","properties":{"x":{"default":${deep}}}}}]}`
        : `{"tools":${tools}}`;
      const lines = [response(id, list)];
      if (mode === 'schema' && !listedOnce) lines.push(listChanged);
      listedOnce = true;
      return lines;
    }
    case 'tools/call': {
      const name = params?.name;
      if (name === 'deepen') {
        deepList = true;
        return [response(id, toolResult('deepened')), listChanged];
      }
      if (name === 'deep-result')
        return [
          response(
            id,
            `{"content":[{"type":"text","text":"deep"}],"structuredContent":{"deep":${deep}}}`,
          ),
        ];
      if (name === 'deep-notify')
        return [
          `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep}}}`,
          response(id, toolResult('notified')),
        ];
      return [response(id, toolResult(String(params?.arguments?.text ?? '')))];
    }
    case 'resources/list':
      return [
        response(id, JSON.stringify({ resources: [{ uri: 'deep://resource', name: 'deep' }] })),
      ];
    case 'resources/templates/list':
      return [response(id, '{"resourceTemplates":[]}')];
    case 'resources/read':
      return [
        response(
          id,
          `{"contents":[{"uri":"deep://resource","mimeType":"application/json","text":"[]","_meta":{"deep":${deep}}}]}`,
        ),
      ];
    default:
      return [
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32601,"message":"Method not found: ${method}"}}`,
      ];
  }
}

function parse(text) {
  try {
    const message = JSON.parse(text);
    return message && typeof message.method === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

if (transport === '--http') {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const message = parse(Buffer.concat(parts).toString('utf8'));
      const lines = message ? answer(message) : [];
      if (lines.length === 0) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // The answer's stream ends with the answer: a notification after it has no stream.
      const isNote = (l) => l.startsWith('{"jsonrpc":"2.0","method"');
      const ordered = [...lines.filter(isNote), ...lines.filter((l) => !isNote(l))];
      for (const line of ordered) res.write(`event: message\ndata: ${line}\n\n`);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => server.close(() => process.exit(0)));
} else {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      const message = line ? parse(line) : undefined;
      if (message) for (const out of answer(message)) process.stdout.write(`${out}\n`);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}
