import type { ServerResponse } from 'node:http';

/** Opens an SSE response. */
export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies must not hold events back.
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.flushHeaders();
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
