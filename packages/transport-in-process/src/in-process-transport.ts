import {
  ConnectionClosedError,
  type JsonRpcMessage,
  type MessageExtra,
  SENT,
  type Transport,
  type TransportCapabilities,
  type TransportSendOptions,
} from '@mcpkit/jsonrpc';

export interface InProcessTransportOptions {
  /**
   * Copy each message through `JSON.stringify`/`JSON.parse`, as a real wire would.
   * Catches non-serializable payloads and shared-object mutation in tests. Default true.
   */
  copyMessages?: boolean;
  /** Used in error messages. */
  description?: string;
}

const capabilities: TransportCapabilities = Object.freeze({
  sendBeforeStart: false,
  serverToClientRequests: true,
  sessions: false,
});

/**
 * One end of a linked pair. Messages are delivered asynchronously, in order, from a
 * queue drained outside the sender's stack: a handler that answers synchronously never
 * re-enters the sender, and a storm of requests does not grow the stack.
 */
export class InProcessTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly capabilities = capabilities;
  readonly description: string;

  /** @internal */ peer: InProcessTransport | undefined;
  private readonly copyMessages: boolean;
  private started = false;
  private closed = false;
  private readonly inbox: JsonRpcMessage[] = [];
  private draining = false;

  constructor(options: InProcessTransportOptions = {}) {
    this.copyMessages = options.copyMessages ?? true;
    this.description = options.description ?? 'in-process';
  }

  async start(): Promise<void> {
    if (this.closed)
      throw new ConnectionClosedError(`${this.description}: cannot start a closed transport`);
    if (this.started) return;
    this.started = true;
    this.scheduleDrain();
  }

  send(message: JsonRpcMessage, _options?: TransportSendOptions): Promise<void> {
    const peer = this.peer;
    if (this.closed || !peer || peer.closed) {
      return Promise.reject(
        new ConnectionClosedError(`${this.description}: cannot send, the transport is closed`),
      );
    }
    let delivered: JsonRpcMessage;
    try {
      delivered = this.copyMessages
        ? (JSON.parse(JSON.stringify(message)) as JsonRpcMessage)
        : message;
    } catch (error) {
      return Promise.reject(error);
    }
    peer.inbox.push(delivered);
    peer.scheduleDrain();
    return SENT;
  }

  async close(): Promise<void> {
    this.closeLocal(undefined);
    this.peer?.closeLocal(
      new ConnectionClosedError(`${this.peer.description}: the other end closed`),
    );
  }

  private closeLocal(cause: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.inbox.length = 0;
    this.onclose?.(cause);
  }

  private scheduleDrain(): void {
    if (this.draining || !this.started || this.inbox.length === 0) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    // Only what is queued now; messages sent while draining wait for the next turn,
    // so two ends answering each other forever cannot starve the event loop.
    const count = this.inbox.length;
    const batch = this.inbox.splice(0, count);
    for (const message of batch) {
      if (this.closed) break;
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.draining = false;
    this.scheduleDrain();
  }
}

/** Creates a linked pair: what one end sends, the other receives. */
export function createInProcessPair(
  options: InProcessTransportOptions = {},
): [client: InProcessTransport, server: InProcessTransport] {
  const client = new InProcessTransport({
    ...options,
    description: options.description ?? 'in-process client',
  });
  const server = new InProcessTransport({
    ...options,
    description: options.description ?? 'in-process server',
  });
  client.peer = server;
  server.peer = client;
  return [client, server];
}
