import {
  AlreadyStartedError,
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  type JsonRpcMessage,
  type MessageExtra,
  MessageTooLargeError,
  ParseError,
  type Transport,
  type TransportCapabilities,
  TransportError,
} from '@mcpkit/jsonrpc';
import {
  checkMaxJsonDepth,
  checkMaxMessageBytes,
  checkTimerMs,
  dispatchJsonText,
} from '@mcpkit/jsonrpc/internal';
import WebSocket from 'ws';

export const websocketDefaults = Object.freeze({
  /** Ping the server this often… */
  pingIntervalMs: 30_000,
  /** …and close the connection when a pong takes longer than this. */
  pongTimeoutMs: 10_000,
  connectTimeoutMs: 30_000,
});

export interface WebSocketTransportOptions {
  url: string | URL;
  headers?: Record<string, string>;
  /** For `ws-ide` servers: a token sent in `authTokenHeader`. */
  authToken?: string;
  /** Default `X-MCP-IDE-Authorization`. */
  authTokenHeader?: string;
  /** Ping the server this often; `0` sends no pings. Default 30 s. */
  pingIntervalMs?: number;
  /** Close the connection when a pong takes longer than this. Default 10 s. */
  pongTimeoutMs?: number;
  /** How long the upgrade handshake may take. Default 30 s. */
  connectTimeoutMs?: number;
  /** Largest frame accepted (ws `maxPayload`); a larger one closes the connection. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a message. Default 256 (`DEFAULT_MAX_JSON_DEPTH`). */
  maxJsonDepth?: number;
  name?: string;
  /** Injected WebSocket implementation (defaults to `ws`). */
  WebSocket?: typeof WebSocket;
}

/** The connection closed with a code other than 1000 (normal). */
export class WebSocketClosedError extends ConnectionClosedError {
  static override readonly brand: string = '@mcpkit/transport-websocket.WebSocketClosedError';
  override readonly name = 'WebSocketClosedError';
  readonly closeCode: number;
  readonly reason: string;
  constructor(message: string, closeCode: number, reason: string) {
    super(message);
    this.closeCode = closeCode;
    this.reason = reason;
  }
}

const CLOSE_MEANINGS: Record<number, string> = {
  1001: 'the server is going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1006: 'the connection dropped without a close frame',
  1008: 'policy violation',
  1009: 'message too big',
  1011: 'server error',
  1012: 'the server is restarting',
  1013: 'try again later',
};

const capabilities: TransportCapabilities = Object.freeze({
  sendBeforeStart: false,
  serverToClientRequests: true,
  sessions: false,
});

/** One JSON-RPC message per text frame, over a WebSocket with the `mcp` subprotocol. */
export class WebSocketTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly capabilities = capabilities;
  readonly description: string;
  readonly url: URL;
  private readonly options: WebSocketTransportOptions;
  private socket: WebSocket | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private closeCause: Error | undefined;
  private localClose = false;

  constructor(options: WebSocketTransportOptions) {
    const owner = 'WebSocketTransport';
    checkTimerMs(owner, 'pingIntervalMs', options.pingIntervalMs, { zero: true });
    checkTimerMs(owner, 'pongTimeoutMs', options.pongTimeoutMs);
    checkTimerMs(owner, 'connectTimeoutMs', options.connectTimeoutMs);
    checkMaxMessageBytes(owner, options.maxMessageBytes);
    checkMaxJsonDepth(owner, options.maxJsonDepth);
    this.options = options;
    this.url = new URL(options.url);
    this.description = options.name
      ? `server "${options.name}"`
      : `${this.url.origin}${this.url.pathname}`;
  }

  start(): Promise<void> {
    if (this.socket)
      return Promise.reject(
        new AlreadyStartedError(
          `${this.description}: start() may be called only once; create a new transport to reconnect`,
        ),
      );
    const o = this.options;
    const headers = { ...o.headers };
    if (o.authToken !== undefined)
      headers[o.authTokenHeader ?? 'X-MCP-IDE-Authorization'] = o.authToken;
    const Impl = o.WebSocket ?? WebSocket;
    const socket = new Impl(this.url, 'mcp', {
      headers,
      maxPayload: o.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      handshakeTimeout: o.connectTimeoutMs ?? websocketDefaults.connectTimeoutMs,
    });
    this.socket = socket;
    return new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        this.closed = true;
        // close() during the handshake aborts it: that is a close, not a failure to connect.
        if (this.localClose) {
          reject(
            new ConnectionClosedError(
              `${this.description}: closed while connecting to ${this.url.href}`,
              { cause: error },
            ),
          );
          return;
        }
        reject(
          new TransportError(
            `${this.description}: cannot connect to ${this.url.href}: ${error.message}`,
            { cause: error },
          ),
        );
      };
      socket.once('error', fail);
      socket.once('unexpected-response', (_req, res) => {
        // The refusal's body is never read: terminate() drops the connection, so a server
        // cannot make us hold a body of any size.
        socket.off('error', fail);
        this.closed = true;
        // terminate() during the handshake emits an error we already reported.
        socket.on('error', () => {});
        socket.terminate();
        reject(
          new TransportError(
            `${this.description}: ${this.url.href} answered the WebSocket upgrade with HTTP ${res.statusCode}`,
          ),
        );
      });
      socket.once('open', () => {
        socket.off('error', fail);
        if (socket.protocol !== 'mcp') {
          this.localClose = true;
          socket.close(1002, 'subprotocol mcp required');
          reject(
            new TransportError(
              `${this.description}: the server did not accept the "mcp" subprotocol`,
            ),
          );
          return;
        }
        socket.on('error', (error) => {
          if (error.message.includes('Max payload size exceeded')) {
            const limit = o.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
            this.closeCause = new MessageTooLargeError(
              `${this.description}: a message from ${this.url.href} exceeded the ${limit}-byte message limit; the connection was closed`,
              limit,
              { serverName: o.name, url: this.url.href },
            );
          } else {
            this.onerror?.(error);
          }
        });
        socket.on('message', (data, isBinary) => this.receive(data, isBinary));
        socket.on('pong', () => {
          clearTimeout(this.pongTimer);
          this.pongTimer = undefined;
        });
        socket.on('close', (code, reason) => this.handleClose(code, reason.toString()));
        this.startKeepAlive();
        resolve();
      });
    });
  }

  private startKeepAlive(): void {
    const interval = this.options.pingIntervalMs ?? websocketDefaults.pingIntervalMs;
    const timeout = this.options.pongTimeoutMs ?? websocketDefaults.pongTimeoutMs;
    if (interval === 0) return;
    this.pingTimer = setInterval(() => {
      if (this.pongTimer || !this.socket) return;
      this.socket.ping();
      this.pongTimer = setTimeout(() => {
        this.closeCause = new ConnectionClosedError(
          `${this.description}: no pong within ${timeout} ms; the connection is dead`,
        );
        this.socket?.terminate();
      }, timeout);
    }, interval);
    this.pingTimer.unref?.();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.onerror?.(
        new ParseError(
          `${this.description}: a binary frame was ignored (MCP uses text frames)`,
          '',
        ),
      );
      return;
    }
    dispatchJsonText(
      data.toString(),
      this.description,
      (m) => this.onmessage?.(m),
      (e) => this.onerror?.(e),
      'a frame',
      this.options.maxJsonDepth,
    );
  }

  send(message: JsonRpcMessage): Promise<void> {
    const socket = this.socket;
    if (this.closed || !socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(
        new ConnectionClosedError(`${this.description}: cannot send, the WebSocket is not open`, {
          cause: this.closeCause,
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  private handleClose(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    let cause = this.closeCause;
    if (!cause && !this.localClose && code !== 1000) {
      const meaning = CLOSE_MEANINGS[code] ?? 'closed';
      cause = new WebSocketClosedError(
        `${this.description}: WebSocket closed with code ${code} (${meaning})${reason ? `: ${reason}` : ''}`,
        code,
        reason,
      );
    }
    if (!cause && !this.localClose)
      cause = new WebSocketClosedError(
        `${this.description}: the server closed the WebSocket`,
        code,
        reason,
      );
    this.onclose?.(cause);
  }

  async close(): Promise<void> {
    const socket = this.socket;
    if (this.closed || !socket) {
      this.closed = true;
      return;
    }
    this.localClose = true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => socket.terminate(), 2000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1000);
    });
  }
}
