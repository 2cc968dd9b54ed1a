// The floor of the gateway benchmark: the least an intermediary in Node can do per forwarded
// call. It passes NDJSON lines between its caller (stdin/stdout) and a backend child,
// re-numbering request ids, with no MCP, no validation and no handshake of its own.
// Usage: node floor-proxy.mjs <command> [args...]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
/** Our id toward the backend → the caller's id. */
const ids = new Map();
let nextId = 1;

function lines(stream, onLine) {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (text) => {
    buffered += text;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onLine(JSON.parse(line));
    }
  });
}

lines(process.stdin, (message) => {
  if (message.id !== undefined && message.method !== undefined) {
    const id = nextId++;
    ids.set(id, message.id);
    message.id = id;
  }
  child.stdin.write(`${JSON.stringify(message)}\n`);
});
lines(child.stdout, (message) => {
  if (message.id !== undefined && message.method === undefined) {
    const id = ids.get(message.id);
    ids.delete(message.id);
    message.id = id;
  }
  process.stdout.write(`${JSON.stringify(message)}\n`);
});
const stop = () => {
  child.stdin.end();
  process.exit(0);
};
process.stdin.on('end', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
