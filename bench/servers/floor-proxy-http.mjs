// The floor of the gateway benchmark over Streamable HTTP: plain node:http on 127.0.0.1 in
// front of an NDJSON backend child. Each POST's JSON-RPC message goes to the backend under a
// new id and its answer comes back as the JSON body; no MCP, one fixed session id. The one
// check it makes is the one every real forwarder makes: with `FLOOR_PROXY_TOKEN` set, each
// request must carry `Authorization: Bearer <token>` (compared in constant time) or gets 401,
// so that the caller sends it the same header as our gateway and both pay for it.
// Prints "PORT <n>" on stdout once listening. Usage: node floor-proxy-http.mjs <command> [args...]
import { spawn } from 'node:child_process';
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
/** Our id toward the backend → the waiting response and the caller's id. */
const waiting = new Map();
let nextId = 1;

let buffered = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (text) => {
  buffered += text;
  for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    const w = waiting.get(message.id);
    if (!w) continue;
    waiting.delete(message.id);
    message.id = w.id;
    w.res
      .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'floor' })
      .end(JSON.stringify(message));
  }
});

const token = process.env.FLOOR_PROXY_TOKEN;
const expected = token ? Buffer.from(`Bearer ${token}`, 'latin1') : undefined;
/** Whether the request carries the expected bearer token (always, without one configured). */
function authorized(req) {
  if (!expected) return true;
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(header, 'latin1'), expected);
}

const http = createServer((req, res) => {
  if (!authorized(req)) {
    req.resume();
    return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  }
  if (req.method !== 'POST') return void res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(parts).toString());
    if (message.id === undefined || message.method === undefined) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      return void res.writeHead(202).end();
    }
    const id = nextId++;
    waiting.set(id, { id: message.id, res });
    message.id = id;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${http.address().port}\n`));
const stop = () => {
  http.closeAllConnections();
  http.close();
  child.stdin.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
