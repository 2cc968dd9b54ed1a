// A small real MCP server (no dependencies, stdio) whose answers hold keys named
// `__proto__`: a plain key in JSON, which a copy made by assignment loses. Written as
// text, so the bytes are exactly these.
//   tools/call "proto"        a result the hand-written fast check leaves to the schema
//                             (an image block) with `__proto__` in structuredContent and _meta
//   tools/call "proto-text"   a plain text result with `__proto__` in structuredContent
//   resources/read            contents whose _meta has a `__proto__` key
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

export const PROTO_RESULT =
  '{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"structuredContent":{"__proto__":{"admin":true},"n":1},"_meta":{"__proto__":"m"}}';
export const PROTO_TEXT_RESULT =
  '{"content":[{"type":"text","text":"t"}],"structuredContent":{"__proto__":{"admin":true}}}';
export const PROTO_CONTENTS =
  '{"contents":[{"uri":"proto://r","mimeType":"text/plain","text":"r","_meta":{"__proto__":[1,2]}}]}';

const TOOLS = JSON.stringify({
  tools: [
    { name: 'proto', inputSchema: { type: 'object' } },
    { name: 'proto-text', inputSchema: { type: 'object' } },
  ],
});
const RESOURCES = JSON.stringify({ resources: [{ uri: 'proto://r', name: 'r' }] });

const reply = (id, result) =>
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const { id, method, params } = JSON.parse(line);
    if (id === undefined) return;
    if (method === 'initialize')
      reply(
        id,
        JSON.stringify({
          protocolVersion: params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {}, resources: {} },
          serverInfo: { name: 'proto-keys', version: '1.0.0' },
        }),
      );
    else if (method === 'tools/list') reply(id, TOOLS);
    else if (method === 'resources/list') reply(id, RESOURCES);
    else if (method === 'tools/call')
      reply(id, params?.name === 'proto-text' ? PROTO_TEXT_RESULT : PROTO_RESULT);
    else if (method === 'resources/read') reply(id, PROTO_CONTENTS);
    else if (method === 'ping') reply(id, '{}');
    else
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32601,"message":"no ${method}"}}\n`,
      );
  });
}
