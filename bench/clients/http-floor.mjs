// The HTTP floor: plain node:http POSTs of JSON-RPC with a keep-alive agent. No MCP.
import http from 'node:http';

export async function open(url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(url);
  let nextId = 1;
  const post = (message) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(message);
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const parts = [];
          res.on('data', (c) => parts.push(c));
          res.on('end', () =>
            resolve(parts.length ? JSON.parse(Buffer.concat(parts).toString()).result : undefined),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await post({ jsonrpc: '2.0', id: nextId++, method: 'initialize', params: {} });
  return {
    call: (args) =>
      post({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name: 'echo', arguments: args },
      }),
    close: async () => agent.destroy(),
  };
}
