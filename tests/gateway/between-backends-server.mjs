// A small real MCP server over stdio (no dependencies) for the gateway's between-backends
// tests. `node between-backends-server.mjs <name> '<json>'` where the JSON may hold
//   resources: ["uri", …]        served resources; reading one answers "<name> <uri>"
//   templates: ["template", …]   resource templates; reading any URI answers "<name> <uri>"
//   tools:     ["name", …]       extra tools answering "<name> <tool>"
// Its tools:
//   update {uri}    sends notifications/resources/updated for <uri>, subscribed or not
//   elicit {message, mode?}   asks the client elicitation/create (form, or url with mode
//                   "url") and answers with what came back: the answer's JSON, or
//                   "error <code> <message>"
//   log {text}      sends notifications/message (info) with <text>, then answers
//   outcomes {count}  once <count> elicitations were answered (or failed): what each got
const name = process.argv[2] ?? 'backend';
const config = JSON.parse(process.argv[3] ?? '{}');
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (id, value) =>
  send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: value }] } });
let nextId = 0;
const asked = new Map();
const outcomes = [];
const outcomeWaiters = [];

const tools = [
  { name: 'update', inputSchema: { type: 'object', properties: { uri: { type: 'string' } } } },
  {
    name: 'elicit',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, mode: { type: 'string' } },
    },
  },
  {
    name: 'outcomes',
    inputSchema: { type: 'object', properties: { count: { type: 'integer' } } },
  },
  { name: 'log', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  ...(config.tools ?? []).map((t) => ({ name: t, inputSchema: { type: 'object' } })),
];

function ask(method, params) {
  const id = `ask-${++nextId}`;
  send({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve) => asked.set(id, resolve));
}

async function answer(message) {
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      return send({
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params?.protocolVersion ?? '2025-11-25',
          capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
          serverInfo: { name, version: '1.0.0' },
        },
      });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id, result: { tools } });
    case 'resources/list':
      return send({
        jsonrpc: '2.0',
        id,
        result: { resources: (config.resources ?? []).map((uri) => ({ uri, name: uri })) },
      });
    case 'resources/templates/list':
      return send({
        jsonrpc: '2.0',
        id,
        result: {
          resourceTemplates: (config.templates ?? []).map((uriTemplate) => ({
            uriTemplate,
            name: uriTemplate,
          })),
        },
      });
    case 'resources/read':
      return send({
        jsonrpc: '2.0',
        id,
        result: { contents: [{ uri: params.uri, text: `${name} ${params.uri}` }] },
      });
    case 'resources/subscribe':
    case 'resources/unsubscribe':
    case 'logging/setLevel':
      return send({ jsonrpc: '2.0', id, result: {} });
    case 'tools/call': {
      const args = params?.arguments ?? {};
      if (params.name === 'update') {
        send({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: args.uri },
        });
        return text(id, 'sent');
      }
      if (params.name === 'log') {
        send({
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', logger: name, data: args.text },
        });
        return text(id, 'logged');
      }
      if (params.name === 'elicit') {
        const request =
          args.mode === 'url'
            ? {
                mode: 'url',
                message: args.message,
                url: 'https://example.com/consent',
                elicitationId: `e-${nextId}`,
              }
            : {
                message: args.message,
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              };
        const reply = await ask('elicitation/create', request);
        const said = reply.error
          ? `error ${reply.error.code} ${reply.error.message}`
          : JSON.stringify(reply.result);
        outcomes.push(said);
        for (const wake of outcomeWaiters.splice(0)) wake();
        return text(id, said);
      }
      if (params.name === 'outcomes') {
        const count = args.count ?? 1;
        while (outcomes.length < count) await new Promise((wake) => outcomeWaiters.push(wake));
        return text(id, JSON.stringify(outcomes));
      }
      return text(id, `${name} ${params.name}`);
    }
    default:
      if (id !== undefined)
        send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no ${method}` } });
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.method === undefined && asked.has(message.id)) {
      const resolve = asked.get(message.id);
      asked.delete(message.id);
      resolve(message);
    } else if (message.id !== undefined) void answer(message);
  }
});
process.stdin.on('end', () => process.exit(0));
