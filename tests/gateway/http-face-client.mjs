// A client of the gateway in its own process (another program of the machine, as a local
// account's would be): `node http-face-client.mjs <url> [authorization]` POSTs an
// initialize, with that Authorization header when given, and prints {"status":N}.
const [url, authorization] = process.argv.slice(2);
const res = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(authorization ? { authorization } : {}),
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'other-process', version: '1' },
    },
  }),
});
await res.body?.cancel();
process.stdout.write(JSON.stringify({ status: res.status }));
