// @mcpkit/jsonrpc + @mcpkit/transport-in-process: two JSON-RPC peers in one process,
// with progress, a timeout and cancellation.
import { JsonRpcPeer, TimeoutError } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';

export async function main(): Promise<string> {
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  const client = new JsonRpcPeer(clientEnd, { label: 'server "demo"' });

  server.setRequestHandler('count', async (params: { to: number }, ctx) => {
    for (let i = 1; i <= params.to; i++) await ctx.progress({ progress: i, total: params.to });
    return { counted: params.to };
  });
  server.setRequestHandler(
    'sleep',
    (_params, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
  );
  await Promise.all([server.start(), client.start()]);

  const steps: number[] = [];
  const result = await client.request(
    'count',
    { to: 3 },
    { onprogress: (p) => steps.push(p.progress) },
  );
  const timedOut = await client
    .request('sleep', {}, { timeoutMs: 20 })
    .catch((e: unknown) => TimeoutError.isInstance(e));
  await client.close();
  return `count → ${JSON.stringify(result)} after progress ${steps.join(',')}; sleep timed out: ${timedOut}`;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main());
