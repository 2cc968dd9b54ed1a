// A real McpServer on @mcpkit/server's built listenStreamableHttp, for memory measurements in
// a process of its own (run with --expose-gc). Its tool `big` answers MEMORY_RESULT_BYTES of
// text: after a progress notification (so the answer goes over SSE), or, with
// `{ "poll": true }`, after closing its response stream (SEP-1699) so the answer waits in
// the session's event buffer for a resumption. Listener options come as JSON in
// MEMORY_LIMITS. stdout: one JSON line with the URL, then one per `measure` line on stdin:
// the handler's stats (null when it has none) and the process's memory after full GCs.
import { createInterface } from 'node:readline';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';

const size = Number(process.env.MEMORY_RESULT_BYTES ?? 3 * 1024 * 1024);
const limits = JSON.parse(process.env.MEMORY_LIMITS ?? '{}');

const server = new McpServer({ info: { name: 'memory', version: '1.0.0' } });
server.registerTool(
  'big',
  {
    description: `Answers ${size} bytes of text`,
    inputSchema: { type: 'object', properties: { poll: { type: 'boolean' } } },
  },
  async (args, ctx) => {
    if (args.poll === true) ctx.closeSseStream();
    else await ctx.progress({ progress: 1, total: 1 });
    return { content: [{ type: 'text', text: 'x'.repeat(size) }] };
  },
);

const listener = await listenStreamableHttp(server, limits);
process.stdout.write(`${JSON.stringify({ url: listener.url.href })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  if (line === 'measure') {
    for (let i = 0; i < 3; i++) globalThis.gc();
    const m = process.memoryUsage();
    const stats = typeof listener.handler.stats === 'function' ? listener.handler.stats() : null;
    process.stdout.write(
      `${JSON.stringify({ stats, sessions: listener.handler.sessionCount, rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers })}\n`,
    );
  }
});
lines.on('close', async () => {
  await listener.close();
  process.exit(0);
});
