// A small real MCP server over stdio (no dependencies) for the gateway's edge tests. It asks
// its client for roots/list as soon as it is initialized (when the client declared roots)
// and again on notifications/roots/list_changed, as server-everything does, and tells what
// it got through its tools:
//   roots {count}  every outcome so far, once there are at least <count> (default 1):
//                  [{"roots":[…]} or {"error":{…}}, …]
//   big {bytes}    a text result of that many "x" (an answer as large as asked)
//   echo {text}    its text
const outcomes = [];
const outcomeWaiters = [];
let clientCapabilities = {};
let nextId = 0;
const asked = new Map();

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (id, value) =>
  send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: value }] } });

function askRoots() {
  if (clientCapabilities.roots === undefined) return;
  const id = `probe-${++nextId}`;
  asked.set(id, 'roots/list');
  send({ jsonrpc: '2.0', id, method: 'roots/list' });
}

function outcome(value) {
  outcomes.push(value);
  for (const wake of outcomeWaiters.splice(0)) wake();
}

const tools = [
  {
    name: 'roots',
    description: 'What roots/list returned so far, once it returned <count> times.',
    inputSchema: { type: 'object', properties: { count: { type: 'integer' } } },
  },
  {
    name: 'big',
    description: 'A text result of <bytes> bytes.',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } },
  },
  {
    name: 'echo',
    description: 'Echoes its input.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
];

async function answer(message) {
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      clientCapabilities = params?.capabilities ?? {};
      return send({
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'roots-probe', version: '1.0.0' },
        },
      });
    case 'notifications/initialized':
    case 'notifications/roots/list_changed':
      return askRoots();
    case 'ping':
      return send({ jsonrpc: '2.0', id, result: {} });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id, result: { tools } });
    case 'tools/call': {
      const name = params?.name;
      if (name === 'roots') {
        const count = Number(params?.arguments?.count ?? 1);
        while (outcomes.length < count)
          await new Promise((resolve) => outcomeWaiters.push(resolve));
        return text(id, JSON.stringify(outcomes));
      }
      if (name === 'big') return text(id, 'x'.repeat(Number(params?.arguments?.bytes ?? 0)));
      return text(id, String(params?.arguments?.text ?? ''));
    }
    default:
      if (id !== undefined)
        send({
          jsonrpc: '2.0',
          id,
          error: { code: -32601, message: `Method not found: ${method}` },
        });
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof message?.method === 'string') void answer(message);
    else if (asked.delete(message?.id))
      outcome(message.error ? { error: message.error } : { roots: message.result?.roots });
  }
});
process.stdin.on('end', () => process.exit(0));
