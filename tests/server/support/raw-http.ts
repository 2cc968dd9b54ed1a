import { type IncomingMessage, request } from 'node:http';

/** Raw HTTP for binding tests: real requests to 127.0.0.1, any header (including Host). */
export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  json(): any;
}

export function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text,
          json: () => JSON.parse(text),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const legacyHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...legacyHeaders,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

export const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** An `initialize` request's body (id 1) for `version`. */
export const initializeBody = (version = '2025-11-25') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  });

/**
 * A 2025-revision session opened by hand: `initialize`, then `notifications/initialized`;
 * its id. Fails the test when the server refuses either.
 */
export async function openRawSession(url: URL, version = '2025-11-25'): Promise<string> {
  const res = await send(url, 'POST', legacyHeaders, initializeBody(version));
  const id = res.headers['mcp-session-id'];
  if (res.status !== 200 || typeof id !== 'string')
    throw new Error(`initialize was answered ${res.status}: ${res.body}`);
  const ack = await send(
    url,
    'POST',
    { ...legacyHeaders, 'mcp-session-id': id, 'mcp-protocol-version': version },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  if (ack.status !== 202) throw new Error(`notifications/initialized was answered ${ack.status}`);
  return id;
}

/** An SSE response read event by event. */
export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** The next event (id and data); undefined when the stream ended. */
  next(): Promise<{ id?: string; retry?: string; data: string } | undefined>;
  /** Closes the connection from the client side. */
  destroy(): void;
}

export function openSse(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.setEncoding('utf8');
      const events: Array<{ id?: string; retry?: string; data: string } | undefined> = [];
      const waiters: Array<(e: (typeof events)[number]) => void> = [];
      const push = (e: (typeof events)[number]) => {
        const w = waiters.shift();
        if (w) w(e);
        else events.push(e);
      };
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: { id?: string; retry?: string; data: string } = { data: '' };
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') event.data += value;
            else if (field === 'id') event.id = value;
            else if (field === 'retry') event.retry = value;
          }
          push(event);
          end = buffer.indexOf('\n\n');
        }
      });
      res.on('end', () => push(undefined));
      res.on('close', () => push(undefined));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        next: () =>
          events.length > 0
            ? Promise.resolve(events.shift())
            : new Promise((r) => {
                waiters.push(r);
              }),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', (error) => {
      if ((error as { code?: string }).code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}
