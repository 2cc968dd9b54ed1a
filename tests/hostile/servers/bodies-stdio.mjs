// A hostile stdio MCP server: it answers the first request with a line that never ends
// (`{"jsonrpc":"2.0","id":<id>,"result":{"pad":"xxxx…` forever), written as fast as the
// client reads. It stops only when it is killed or its stdout closes.

const chunk = Buffer.alloc(64 * 1024, 'x');
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  buffered += text;
  const newline = buffered.indexOf('\n');
  if (newline === -1) return;
  const request = JSON.parse(buffered.slice(0, newline));
  process.stdin.pause();
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"pad":"`);
  const pump = () => {
    while (process.stdout.write(chunk)) {}
    process.stdout.once('drain', pump);
  };
  pump();
});
process.stdout.on('error', () => process.exit(0));
