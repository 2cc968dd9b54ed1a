import type { InstrumentedRequest, JsonRpcId, JsonRpcPeerOptions } from '@mcpkit/jsonrpc';
import type { ServerRequestWrapper } from './client-handlers.js';
import type { Connection } from './connection.js';
import { mcpTransportOf } from './mcp-transport-of.js';
import type { CallOptions } from './options.js';

/** `network.transport` of the transports we ship, by class (absent for in-process and others). */
const NETWORK_TRANSPORT: Record<string, string> = {
  StdioTransport: 'pipe',
  StreamableHttpTransport: 'tcp',
  SseTransport: 'tcp',
  WebSocketTransport: 'tcp',
};

/** `network.protocol.name` of the transports we ship, by class (absent for stdio and others). */
const NETWORK_PROTOCOL: Record<string, string> = {
  StreamableHttpTransport: 'http',
  SseTransport: 'http',
  WebSocketTransport: 'websocket',
};

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** What a request's description takes from its transport: the same for every request. */
interface Endpoint {
  readonly networkTransport: string | undefined;
  readonly serverAddress: string | undefined;
  readonly serverPort: number | undefined;
  readonly networkProtocolName: string | undefined;
  readonly networkProtocolVersion: string | undefined;
}

const endpoints = new WeakMap<object, Endpoint>();

/** `network.transport`, `server.address` and `server.port` of a transport, worked out once. */
function endpointOf(transport: ReturnType<typeof mcpTransportOf>): Endpoint {
  let endpoint = endpoints.get(transport);
  if (endpoint !== undefined) return endpoint;
  const url = (transport as { url?: unknown }).url;
  let serverAddress: string | undefined;
  let serverPort: number | undefined;
  if (url instanceof URL) {
    // `URL.hostname` keeps an IPv6 address's brackets; the attribute has none.
    serverAddress = url.hostname.replace(/^\[(.*)\]$/, '$1');
    serverPort = url.port === '' ? DEFAULT_PORT[url.protocol] : Number(url.port);
  }
  // A wrapper (the manager's HTTP fallback) keyed by an HTTP endpoint: TCP, HTTP.
  const overHttp = transport.eraKey?.startsWith('http') === true;
  const httpVersion = (transport as { httpVersion?: unknown }).httpVersion;
  endpoint = {
    networkTransport:
      NETWORK_TRANSPORT[transport.constructor.name] ?? (overHttp ? 'tcp' : undefined),
    serverAddress,
    serverPort,
    networkProtocolName:
      NETWORK_PROTOCOL[transport.constructor.name] ?? (overHttp ? 'http' : undefined),
    networkProtocolVersion: typeof httpVersion === 'string' ? httpVersion : undefined,
  };
  endpoints.set(transport, endpoint);
  return endpoint;
}

const NO_ENDPOINT: Endpoint = {
  networkTransport: undefined,
  serverAddress: undefined,
  serverPort: undefined,
  networkProtocolName: undefined,
  networkProtocolVersion: undefined,
};

/**
 * What the instrumentation hook is told of one request (built only when there is one):
 * one object of one shape per request, what the transport gives read once per transport.
 */
export function describeRequest(
  conn: Connection,
  method: string,
  params: Record<string, unknown> | undefined,
): InstrumentedRequest {
  const transport = conn.peer ? mcpTransportOf(conn.peer) : undefined;
  const endpoint = transport !== undefined ? endpointOf(transport) : NO_ENDPOINT;
  return {
    method,
    params,
    serverName: conn.options.name,
    protocolVersion: conn.server?.version,
    sessionId: transport?.sessionId,
    networkTransport: endpoint.networkTransport,
    serverAddress: endpoint.serverAddress,
    serverPort: endpoint.serverPort,
    networkProtocolName: endpoint.networkProtocolName,
    networkProtocolVersion: endpoint.networkProtocolVersion,
  };
}

/** `options` with `onid` also telling the instrumentation (the caller's own `onid` kept). */
export function withOnid(
  options: CallOptions | undefined,
  onid: ((id: JsonRpcId) => void) | undefined,
): CallOptions | undefined {
  if (onid === undefined) return options;
  const own = options?.onid;
  return {
    ...options,
    onid:
      own === undefined
        ? onid
        : (id) => {
            own(id);
            onid(id);
          },
  };
}

/**
 * `send` through the instrumentation's `clientRequest` hook when one is on (the
 * handshake's `initialize` and `server/discover` too): a span, trace context in `_meta`,
 * the JSON-RPC id.
 */
export function instrumented(
  conn: Connection,
  method: string,
  params: Record<string, unknown> | undefined,
  options: CallOptions | undefined,
  send: (
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
  ) => Promise<unknown>,
  protocolVersion?: string,
): Promise<unknown> {
  const hooks = conn.instrumentation;
  if (hooks === undefined || (hooks.enabled !== undefined && !hooks.enabled()))
    return send(params, options);
  const described = describeRequest(conn, method, params);
  return hooks.clientRequest(
    protocolVersion === undefined ? described : { ...described, protocolVersion },
    (traced, onid) => send(traced, withOnid(options, onid)),
  );
}

/**
 * The peer's `wrapNotification` when the hooks observe notifications: each notification
 * the client sends goes through `clientNotification` while they are on.
 */
export function notificationWrapper(
  conn: Connection,
): JsonRpcPeerOptions['wrapNotification'] | undefined {
  const hooks = conn.instrumentation;
  const wrap = hooks?.clientNotification;
  if (hooks === undefined || wrap === undefined) return undefined;
  return (method, params, send) =>
    hooks.enabled !== undefined && !hooks.enabled()
      ? send(params)
      : wrap.call(hooks, describeRequest(conn, method, params), send);
}

/**
 * Starts the session the instrumentation times (`mcp.client.session.duration`) once a
 * connection is set up; returns what ends it (with the cause the connection closed on).
 */
export function startSession(conn: Connection): ((cause?: Error) => void) | undefined {
  const hooks = conn.instrumentation;
  if (hooks?.sessionStart === undefined || (hooks.enabled !== undefined && !hooks.enabled()))
    return undefined;
  const end = hooks.sessionStart('client');
  if (end === undefined) return undefined;
  const {
    serverAddress,
    serverPort,
    networkTransport,
    networkProtocolName,
    networkProtocolVersion,
  } = describeRequest(conn, '', undefined);
  const protocolVersion = conn.server?.version;
  let ended = false;
  return (cause) => {
    if (ended) return;
    ended = true;
    end(
      {
        protocolVersion,
        networkTransport,
        ...(serverAddress !== undefined ? { serverAddress } : {}),
        ...(serverPort !== undefined ? { serverPort } : {}),
        ...(networkProtocolName !== undefined ? { networkProtocolName } : {}),
        ...(networkProtocolVersion !== undefined ? { networkProtocolVersion } : {}),
      },
      cause,
    );
  };
}

/**
 * What answers the server's requests (sampling, elicitation, roots) through the
 * instrumentation's `serverRequest` while it is on; `undefined` without hooks.
 */
export function serverRequestWrapper(conn: Connection): ServerRequestWrapper | undefined {
  const hooks = conn.instrumentation;
  const serverRequest = hooks?.serverRequest;
  if (hooks === undefined || serverRequest === undefined) return undefined;
  return (method, params, id, answer) => {
    if (hooks.enabled !== undefined && !hooks.enabled()) return answer();
    return serverRequest.call(
      hooks,
      { ...describeRequest(conn, method, params), requestId: id },
      answer,
    );
  };
}
