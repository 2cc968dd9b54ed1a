import type { ServerResponse } from 'node:http';
import {
  AbortedError,
  type AuthInfo,
  ConnectionClosedError,
  type HttpPeer,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type MessageExtra,
  RpcErrorCode,
  SENT,
  type Transport,
} from '@mcpkit/jsonrpc';
import { McpErrorCode } from '@mcpkit/protocol';
import { sseEvent, startSse } from './sse.js';
import type { ErrorStatus } from './streamable-http-handler.js';

/** The HTTP status of a 2026-07-28 error response, by JSON-RPC code. */
export function statusOfError(code: number): number {
  if (code === RpcErrorCode.MethodNotFound) return 404;
  if (
    code === McpErrorCode.HeaderMismatch ||
    code === McpErrorCode.MissingRequiredClientCapability ||
    code === McpErrorCode.UnsupportedProtocolVersion ||
    code === RpcErrorCode.InvalidParams ||
    code === RpcErrorCode.InvalidRequest ||
    code === RpcErrorCode.ParseError
  ) {
    return 400;
  }
  return 200;
}

/**
 * One POST of the stateless 2026-07-28 binding as a `Transport`: carries one request in
 * and its notifications and response out, as JSON when the response is all there is, as
 * SSE once anything comes first. The client closing the stream cancels the request.
 */
export class ModernExchangeTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly description = 'HTTP exchange (2026-07-28)';
  private mode: 'pending' | 'sse' | 'done' = 'pending';
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly request: JsonRpcRequest,
    private readonly acceptsSse: boolean,
    private readonly errorStatus?: ErrorStatus,
  ) {}

  async start(): Promise<void> {
    this.res.on('close', () => {
      // Closing the response stream is how a 2026-07-28 client cancels.
      if (this.mode !== 'done') {
        this.finish(new AbortedError('the client closed the HTTP response stream'));
      }
    });
  }

  /** Hands the request to the session. */
  deliver(
    httpPeer: HttpPeer,
    authInfo?: AuthInfo,
    traceHeaders?: Readonly<Record<string, string>>,
  ): void {
    this.onmessage?.(this.request, {
      httpPeer,
      ...(authInfo !== undefined ? { authInfo } : {}),
      ...(traceHeaders !== undefined ? { traceHeaders } : {}),
    });
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed)
      return Promise.reject(new ConnectionClosedError(`${this.description} is closed`));
    const data = JSON.stringify(message);
    if (!('method' in message)) {
      if (this.mode === 'pending') {
        const error = 'error' in message ? message.error : undefined;
        const special =
          error && this.errorStatus ? this.errorStatus(error, this.res.req) : undefined;
        const status = special?.status ?? (error === undefined ? 200 : statusOfError(error.code));
        this.mode = 'done';
        this.res
          .writeHead(status, {
            ...special?.headers,
            'content-type': 'application/json',
            // Known length: the body goes out in one piece, without chunked framing.
            'content-length': Buffer.byteLength(data),
          })
          .end(data);
      } else {
        this.mode = 'done';
        this.res.end(sseEvent(data));
      }
      this.finish(undefined);
      return SENT;
    }
    if (this.mode === 'pending') {
      // A client that takes JSON only gets the final answer alone.
      if (!this.acceptsSse) return SENT;
      this.mode = 'sse';
      // The head goes out with the first event, in one write.
      startSse(this.res, {}, sseEvent(data));
      return SENT;
    }
    this.res.write(sseEvent(data));
    return SENT;
  }

  async close(): Promise<void> {
    if (this.mode !== 'done') {
      this.mode = 'done';
      this.res.end();
    }
    this.finish(undefined);
  }

  private finish(cause: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(cause);
  }
}
