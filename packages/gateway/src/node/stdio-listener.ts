import type { Readable, Writable } from 'node:stream';
import { MessageTooLargeError, RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import { Notification } from '@mcpkit/protocol';
import {
  type McpServer,
  type ServerSession,
  type SessionClient,
  StdioServerTransport,
} from '@mcpkit/server';
import { refuseUndeclared } from '../routing.js';
import type { SoleClient } from '../sole-client.js';

/** Error code of a backend's request the gateway's client cannot be asked. */
const NOT_FORWARDABLE = -32601;

export interface StdioListenerOptions {
  /** Where the client's messages arrive; `process.stdin` by default. */
  stdin?: Readable;
  /** Where messages to the client go; `process.stdout` by default. */
  stdout?: Writable;
  /** The largest line the client may send ; the transport's default when absent. */
  maxMessageBytes?: number;
  /** How long a backend's request waits for the client to say who it is (initialize). */
  waitMs: number;
  /** The client sent `notifications/roots/list_changed`. */
  onrootschanged: () => void;
  /**
   * Words added when a message over `maxMessageBytes` is refused (an application names its
   * own option); the refusal states the size and the limit either way.
   */
  tooLargeAdvice?: string;
}

/**
 * The gateway's stdio listener. Over stdio the gateway has exactly one client, so a backend's
 * `roots/list`, `sampling/createMessage` or `elicitation/create` that belongs to no call can
 * still go to it — when it is a 2025 client that declared the capability (a 2026-07-28
 * client can be asked only within a call). It also passes the client's
 * `notifications/roots/list_changed` on, and has a request over `maxMessageBytes`
 * refused with the size and the limit.
 */
export class StdioListener implements SoleClient {
  private session: ServerSession | undefined;
  /** The stdio client, once its session knows it. */
  private known: SessionClient | undefined;
  private readonly waiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly options: StdioListenerOptions) {}

  /** Serves `server` on stdin/stdout; resolves with the session once it listens. */
  async listen(server: McpServer): Promise<ServerSession> {
    const { maxMessageBytes, stdin, stdout } = this.options;
    const transport = new StdioServerTransport({
      ...(stdin ? { stdin } : {}),
      ...(stdout ? { stdout } : {}),
      ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
    });
    const session = await server.connect(transport, {
      label: 'stdio client',
      // A request over the limit is answered -32600 by the session's peer, with this advice.
      ...(this.options.tooLargeAdvice !== undefined
        ? { tooLargeAdvice: this.options.tooLargeAdvice }
        : {}),
    });
    this.session = session;
    // The client's era and capabilities, once it is initialized (2025) or has sent its first
    // request (2026-07-28).
    session.onclient = (client) => this.learn(client);
    if (session.client) this.learn(session.client);
    session.peer.setNotificationHandler(Notification.RootsListChanged, () =>
      this.options.onrootschanged(),
    );
    void session.closed.then(() => {
      this.closed = true;
      this.wake();
    });
    return session;
  }

  async ask(
    server: string,
    method: string,
    capability: 'elicitation' | 'sampling' | 'roots',
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const known = await this.whoIsIt(server, method, signal);
    if (known.era === 'modern')
      throw new RpcError(
        NOT_FORWARDABLE,
        `mcpkit gateway: "${method}" from server "${server}" arrived outside any call, and the gateway's client speaks 2026-07-28, which can be asked only within a call (an input_required result); refused — ask during a tool call instead`,
      );
    if (known.capabilities[capability] === undefined)
      throw new RpcError(
        NOT_FORWARDABLE,
        `mcpkit gateway: "${method}" from server "${server}" arrived outside any call, and the gateway's client did not declare the "${capability}" capability; refused (use a client that supports ${capability})`,
      );
    refuseUndeclared(server, method, params, known.capabilities, "the gateway's client of");
    const session = this.session;
    if (!session || this.closed) throw this.gone(server, method);
    try {
      return await session.peer.request(method, params, { signal });
    } catch (error) {
      // Said to the backend in full: the peer would pass on only "Internal error".
      if (MessageTooLargeError.isInstance(error))
        throw new RpcError(
          RpcErrorCode.InternalError,
          `mcpkit gateway: the client's answer to "${method}" was over the gateway's ${error.limitBytes}-byte message limit and was dropped${this.options.tooLargeAdvice ? ` (${this.options.tooLargeAdvice})` : ''}`,
        );
      throw error;
    }
  }

  /** The client's era once known: waits (up to `waitMs`) for a client that has not spoken yet. */
  private async whoIsIt(
    server: string,
    method: string,
    signal: AbortSignal,
  ): Promise<SessionClient> {
    if (this.known) return this.known;
    if (this.closed) throw this.gone(server, method);
    let wake!: () => void;
    const spoke = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.waiters.add(wake);
    const timer = setTimeout(wake, this.options.waitMs);
    const onabort = () => wake();
    signal.addEventListener('abort', onabort, { once: true });
    try {
      await spoke;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onabort);
      this.waiters.delete(wake);
    }
    signal.throwIfAborted();
    if (this.known) return this.known;
    if (this.closed) throw this.gone(server, method);
    throw new RpcError(
      NOT_FORWARDABLE,
      `mcpkit gateway: "${method}" from server "${server}" arrived before the gateway's client initialized, and none did within ${this.options.waitMs} ms; refused (ask again once the client is connected)`,
    );
  }

  private gone(server: string, method: string): RpcError {
    return new RpcError(
      NOT_FORWARDABLE,
      `mcpkit gateway: "${method}" from server "${server}" cannot be forwarded: the gateway's stdio client has disconnected`,
    );
  }

  private learn(client: SessionClient): void {
    if (this.known) return;
    this.known = client;
    this.wake();
  }

  private wake(): void {
    for (const wake of this.waiters) wake();
  }
}
