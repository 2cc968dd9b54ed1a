import type { JsonRpcId } from './messages.js';

/**
 * What an instrumentation sees of one MCP request, on either side. Plain data: the
 * packages that call the hooks know nothing of OpenTelemetry (`@mcpkit/otel` implements
 * them).
 */
export interface InstrumentedRequest {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The configured name of the server (client side) or the server's own name. */
  readonly serverName: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly sessionId: string | undefined;
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP and WebSocket; unknown: absent. */
  readonly networkTransport: string | undefined;
  /** The JSON-RPC id, where the side that calls the hook knows it (the server does). */
  readonly requestId?: JsonRpcId;
  /** Client side, HTTP and WebSocket: the host and port of the server's URL. */
  readonly serverAddress?: string | undefined;
  readonly serverPort?: number | undefined;
  /** `network.protocol.name`: `http` for the HTTP transports, `websocket`; stdio: absent. */
  readonly networkProtocolName?: string | undefined;
  /** `network.protocol.version`: the HTTP version (`1.1`, `2`), where the side knows it. */
  readonly networkProtocolVersion?: string | undefined;
  /** Server side, HTTP: the address and port of the peer the request came from (the socket's). */
  readonly clientAddress?: string | undefined;
  readonly clientPort?: number | undefined;
  /**
   * Server side, HTTP: the W3C trace context headers (`traceparent`, `tracestate`,
   * `baggage`) of the HTTP request the message arrived on, when it carried any; what an
   * instrumentation falls back to when `params._meta` carries no context.
   */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}

/** What an instrumentation sees of one MCP session when it ends (either side). */
export interface InstrumentedSession {
  readonly protocolVersion: string | undefined;
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP and WebSocket. */
  readonly networkTransport: string | undefined;
  /** Client side, HTTP and WebSocket: the host and port of the server's URL. */
  readonly serverAddress?: string | undefined;
  readonly serverPort?: number | undefined;
  /** `network.protocol.name` and `.version`, as on `InstrumentedRequest`. */
  readonly networkProtocolName?: string | undefined;
  readonly networkProtocolVersion?: string | undefined;
}

/** What an instrumentation reads of a server manager (`McpManager`): its events and snapshot. */
export interface ObservedManager {
  on(
    type: 'statechange',
    listener: (event: {
      readonly name: string;
      readonly state: ObservedState;
      readonly previous?: ObservedState | undefined;
      readonly reason: string;
    }) => void,
  ): () => void;
  snapshot(): { readonly servers: readonly ObservedState[] };
}

/** One server's state, as a manager reports it. */
export interface ObservedState {
  readonly name: string;
  readonly state: string;
  readonly error?: Error;
  readonly reconnectAttempt?: number;
  /** When the next reconnect attempt starts (ms since the epoch), while one is scheduled. */
  readonly nextRetryAt?: number;
  /** Why the server is in this state. */
  readonly reason?: string;
}

/**
 * Hooks that observe MCP requests. Each is optional; a client or server given none
 * runs exactly as without (one `undefined` check per request).
 */
export interface McpInstrumentation {
  /**
   * Whether the hooks would record anything now. Asked once per request before anything
   * is built for them: `false` and the request runs exactly as with no hooks (no
   * description object, no closure). Absent: always on.
   */
  enabled?(): boolean;
  /**
   * Wraps one request this side sends: a client's request to its server, or a server's
   * request to its client (`sampling/createMessage`, `elicitation/create`, `roots/list`),
   * the sender's CLIENT span either way, as the conventions have it. Calls `send` once, with the params to put on the wire (the
   * same, or a copy whose `_meta` carries trace context), and returns what it returns.
   * `send`'s `onid` is told the JSON-RPC id of each request it sends (a retry sends
   * another).
   */
  clientRequest?(
    request: InstrumentedRequest,
    send: (
      params: Record<string, unknown> | undefined,
      onid?: (id: JsonRpcId) => void,
    ) => Promise<unknown>,
  ): Promise<unknown>;
  /**
   * Wraps one notification a client sends (`notifications/initialized`,
   * `notifications/cancelled`, `notifications/roots/list_changed`). Calls `send` once,
   * with the params to put on the wire, and returns what it returns.
   */
  clientNotification?(
    request: InstrumentedRequest,
    send: (params: Record<string, unknown> | undefined) => Promise<void>,
  ): Promise<void>;
  /**
   * Wraps the handling of one request the peer sent: a server handling its client's
   * request, or a client answering its server's (the receiver's SERVER span). Calls `handle` once (inside
   * whatever context the caller's `_meta` carries) and returns what it returns.
   */
  serverRequest?(request: InstrumentedRequest, handle: () => unknown): unknown;
  /**
   * Told a session began: a client's connection once it is set up, a server's when the
   * connection opens. Returns what is told when it ends, with how it was (and the error
   * it ended with, when it ended badly); `undefined` when nothing is recorded.
   */
  sessionStart?(
    side: 'client' | 'server',
  ): ((session: InstrumentedSession, error?: unknown) => void) | undefined;
  /**
   * Observes a server manager: its connection attempts, state changes and servers by
   * state. `transportOf` gives a server's `network.transport`. Returns what stops it (the
   * manager calls it when it closes).
   */
  observeManager?(
    manager: ObservedManager,
    transportOf: (server: string) => string | undefined,
  ): () => void;
}

const GLOBAL = Symbol.for('mcpkit.instrumentation');
type Holder = { [GLOBAL]?: McpInstrumentation };

/**
 * Makes `instrumentation` the default of every `McpClient` and `McpServer` created from
 * now on without one of their own (`undefined` removes it). Process-wide, like
 * OpenTelemetry's global providers, so an application turns it on in one place.
 */
export function setGlobalInstrumentation(instrumentation: McpInstrumentation | undefined): void {
  (globalThis as Holder)[GLOBAL] = instrumentation;
}

/** The process-wide default set by `setGlobalInstrumentation`, if any. */
export function globalInstrumentation(): McpInstrumentation | undefined {
  return (globalThis as Holder)[GLOBAL];
}
