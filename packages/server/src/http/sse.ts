import type { ServerResponse } from 'node:http';

/** Opens an SSE response. */
export function startSse(
  res: ServerResponse,
  headers: Record<string, string> = {},
  first?: string,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies must not hold events back.
    'x-accel-buffering': 'no',
    ...headers,
  });
  // With a first event, the head goes out with it in one write: a proxy (or the client)
  // then has both or neither. A head alone before a priming event opens a window where a
  // replica killed between the two writes leaves the client a stream with no event id, which
  // a client cannot resume and may wait on forever (seen with the SDK v1 client behind
  // HAProxy, tests/gateway/gateway-replicas-sigkill.test.ts).
  if (first === undefined || first === '') res.flushHeaders();
  else res.write(first);
}

/** One `message` event, with an id when the stream is resumable. */
export function sseEvent(data: string, id?: string): string {
  return id === undefined
    ? `event: message\ndata: ${data}\n\n`
    : `id: ${id}\nevent: message\ndata: ${data}\n\n`;
}

/** The SEP-1699 priming event: an id to resume from and the reconnection delay. */
export function primingEvent(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}

/** A JSON-RPC error as an HTTP answer (the binding's own refusals). */
export function sendJsonError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}
