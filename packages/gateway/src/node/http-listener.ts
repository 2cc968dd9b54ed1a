import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { type AuthInfo, McpkitError } from '@mcpkit/jsonrpc';
import {
  type ErrorStatus,
  listenDefaults,
  listenStreamableHttp,
  type StreamableHttpLimits,
  type StreamableHttpStats,
  streamableHttpDefaults,
} from '@mcpkit/server';
import { LOOPBACK_HOSTS, normalizeOrigin, refuseHostOrOrigin } from '@mcpkit/server/internal';
import { accessErrorStatus } from '../access/access-control.js';
import { bearerChallenge, insufficientScope } from '../auth/challenge.js';
import { AuthorizationServerUnavailableError } from '../auth/fetch-json.js';
import {
  InvalidTokenError,
  ResourceServer,
  type ResourceServerOptions,
} from '../auth/resource-server.js';
import { EndpointRouter, type EndpointSource } from '../compose/endpoint-router.js';
import type { Gateway } from '../gateway.js';

export interface HttpListenerOptions {
  /** Interface to bind (`127.0.0.1`, `::1`, `[::1]`, `0.0.0.0` …). Default `127.0.0.1`. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * The bearer token every request must carry (`generateToken` makes one). Required unless
   * `auth` is `'none'`, which only a loopback bind may use.
   */
  token?: string | undefined;
  /**
   * Who the static token's holder is (`ctx.authInfo.subject`: audit lines, policy rules, its
   * own rate-limit bucket); `httpListenerDefaults.tokenSubject` by default.
   */
  tokenSubject?: string;
  /**
   * OAuth 2.1 resource server (the MCP authorization spec): access tokens from these
   * authorization servers, each endpoint its own resource, with Protected Resource Metadata
   * at `/.well-known/oauth-protected-resource/mcp[/<name>]`. With `token` too, either is let in.
   */
  oauth?: ResourceServerOptions | ResourceServer;
  /**
   * The origin clients reach the gateway at (`https://gw.example.com` behind a TLS proxy):
   * the endpoints' canonical URIs, a token's audience. By default `http://` and the
   * request's `Host` (one of the allowed hosts).
   */
  publicUrl?: string;
  /**
   * `'none'`: serve without a token (loopback binds only: any local account or process can
   * then call every backend). Without it, a missing token is a `TokenRequiredError`.
   */
  auth?: 'token' | 'none';
  /**
   * Host names (no port) the `Host` header may carry besides the bound address's own: for a
   * loopback bind the loopback names, for a specific address that address, for `0.0.0.0` or
   * `::` the machine's interface addresses and its host name.
   */
  allowedHosts?: readonly string[];
  /** Origins a browser may call from besides the gateway's own (scheme, host and port). */
  allowedOrigins?: readonly string[];
  /** The largest request body; bigger ones get 413. The server's default when absent. */
  maxBodyBytes?: number;
  /**
   * Words appended to a 413 for a body announced over `maxBodyBytes` (an application names
   * its own option); the reply states the size and the limit either way.
   */
  tooLargeAdvice?: string;
  /** Named endpoints, served at `/mcp/<name>` (`GatewayEndpoints` is one); `/mcp` is `gateway`. */
  endpoints?: EndpointSource;
  /** Sessions, streams, event buffers: `@mcpkit/server`'s defaults for what is absent. */
  limits?: StreamableHttpLimits;
  /** Time to send a request's headers, in ms (`httpListenerDefaults.headersTimeoutMs`). */
  headersTimeoutMs?: number;
  /** Time to send a whole request, body included, in ms; then 408 and the connection closes. */
  requestTimeoutMs?: number;
  /** Connections open at once; one more is closed when accepted. */
  maxConnections?: number;
  /** Connections open at once from one remote address. */
  maxConnectionsPerAddress?: number;
}

/** The listener's limits when not given (the server listener's own). */
export const httpListenerDefaults = {
  headersTimeoutMs: listenDefaults.headersTimeoutMs,
  requestTimeoutMs: listenDefaults.requestTimeoutMs,
  maxConnections: listenDefaults.maxConnections,
  maxConnectionsPerAddress: listenDefaults.maxConnectionsPerAddress,
  tokenSubject: 'static-token',
} as const;

export interface HttpListener {
  readonly url: URL;
  /** What the listener holds now (sessions, streams, buffered bytes). */
  stats(): StreamableHttpStats;
  close(): Promise<void>;
}

/**
 * A listener without a bearer token: refused before anything is bound, unless `auth: 'none'`
 * was given for a loopback bind (`loopback` says which case this is).
 */
export class TokenRequiredError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.TokenRequiredError';
  override readonly name: string = 'TokenRequiredError';
  readonly loopback: boolean;
  constructor(readonly host: string) {
    const loopback = isLoopbackBind(host);
    super(
      'MCPKIT_GATEWAY_TOKEN_REQUIRED',
      loopback
        ? `listening on ${host} needs a bearer token (or auth: 'none', which lets every local account and process in)`
        : `listening on ${host} needs a bearer token (only a loopback bind may go without one)`,
    );
    this.loopback = loopback;
  }
}

/** Whether a bind address is loopback, by the server's own list of loopback host names. */
export function isLoopbackBind(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return LOOPBACK_HOSTS.includes(bare.includes(':') ? `[${bare}]` : bare);
}

/** A new random bearer token. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison: digests first, so the lengths never differ. */
/** A token's UTF-8 bytes, the form the comparison takes. */
const bytesOf = (token: string): Buffer => Buffer.from(token, 'utf8');

/**
 * Whether a presented token is the expected one: constant time over tokens of the expected
 * length. A wrong length is refused at once, so the length is all the timing can tell: no
 * byte of the token (the one the gateway makes is 43 characters of 256 random bits). Hashing
 * both sides hid the length too, at about 2 µs of every forwarded call.
 */
function sameToken(given: string, expected: Buffer): boolean {
  const bytes = bytesOf(given);
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

/** The credentials of an `Authorization: Bearer <token>` header; the scheme is case-insensitive (RFC 7235 §2.1). */
function bearerOf(header: string | undefined): string {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match ? match[1]! : '';
}

/**
 * What a connection's last request gave: its `Authorization` header and the token in it,
 * its endpoint and `Host` and the resource URI made of them. A client sends the same header
 * with each request of a connection: the next one's token is then the same string object,
 * whose hash V8 keeps (the verified-JWT cache is looked up by it), without the match.
 */
interface ConnectionAuth {
  header: string | undefined;
  token: string;
  /** `token` is the static token: compared once per connection and header, not per request. */
  isStatic: boolean;
  host: string | undefined;
  endpoint: string | undefined;
  resource: string | undefined;
}
const connectionAuth = new WeakMap<object, ConnectionAuth>();

/**
 * The request's bearer token (`bearerOf`), taken from its connection's last request when the
 * header is the same. `headers` is `req.headers`, read once by the caller.
 */
function tokenOf(req: IncomingMessage, headers: IncomingHttpHeaders): string {
  const header = headers.authorization;
  let last = connectionAuth.get(req.socket);
  if (last !== undefined && last.header === header) return last.token;
  const token = bearerOf(header);
  if (last === undefined) {
    last = {
      header,
      token,
      isStatic: false,
      host: undefined,
      endpoint: undefined,
      resource: undefined,
    };
    connectionAuth.set(req.socket, last);
  } else {
    last.header = header;
    last.token = token;
    last.isStatic = false;
  }
  return token;
}

/**
 * Whether `given` (the request's token, from `tokenOf`) is the static token. Compared in
 * constant time once for a connection's header; while the connection's requests carry that
 * same header, the answer is remembered with it (`tokenOf` resets it when the header changes).
 */
function isStaticToken(req: IncomingMessage, given: string, expected: Buffer): boolean {
  const last = connectionAuth.get(req.socket);
  if (last?.isStatic && last.token === given) return true;
  if (!sameToken(given, expected)) return false;
  if (last !== undefined && last.token === given) last.isStatic = true;
  return true;
}

/**
 * The host names a bind answers to: the loopback names for a loopback bind; the address
 * itself for a specific one; for the wildcard every interface address of the machine (IPv4
 * for `0.0.0.0`, all for `::`) and its host name.
 */
export function boundHostNames(host: string): string[] {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  const shown = (address: string) => (address.includes(':') ? `[${address}]` : address);
  const names = new Set<string>(LOOPBACK_HOSTS);
  if (!isLoopbackBind(host)) names.add(shown(bare));
  if (bare === '0.0.0.0' || bare === '::') {
    // 0.0.0.0 listens on IPv4 only; `::` on both.
    for (const list of Object.values(networkInterfaces()))
      for (const entry of list ?? [])
        if (bare === '::' || entry.family === 'IPv4') names.add(shown(entry.address.toLowerCase()));
    const name = hostname().toLowerCase();
    if (name !== '') names.add(name);
  }
  return [...names];
}

/** How long `/healthz` and `/readyz` wait for the session store to answer, in ms. */
const storePingMs = 2000;

/** Undefined when the store answered within `ms`; else what went wrong, in words. */
async function pingWithin(
  store: { ping(): Promise<void> },
  ms: number,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      store.ping().then(() => undefined),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`the store did not answer within ${ms} ms`), ms);
      }),
    ]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/** Where RFC 9728 Protected Resource Metadata is served (with the endpoint's path after it). */
const PRM_PATH = '/.well-known/oauth-protected-resource';

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32001,
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/**
 * The gateway over HTTP, on `@mcpkit/server`'s listener: `/mcp` (Streamable HTTP, both eras)
 * and `GET /healthz`, with the Host/Origin checks against DNS rebinding and cross-site
 * requests, a bearer token on every request (health included) unless `auth: 'none'` on
 * loopback, and bounds on slow requests and on connections.
 */
export async function listenHttp(
  gateway: Pick<Gateway, 'server' | 'health'>,
  options: HttpListenerOptions = {},
): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  const bindHost = host.replace(/^\[|\]$/g, '');
  const loopback = isLoopbackBind(host);
  const token = options.token === '' ? undefined : options.token;
  const tokenBytes = token === undefined ? undefined : bytesOf(token);
  if (token !== undefined && options.auth === 'none')
    throw new TypeError("listenHttp: a token and auth: 'none' exclude each other");
  const oauth =
    options.oauth === undefined
      ? undefined
      : options.oauth instanceof ResourceServer
        ? options.oauth
        : new ResourceServer(options.oauth);
  if (oauth !== undefined && options.auth === 'none')
    throw new TypeError("listenHttp: oauth and auth: 'none' exclude each other");
  // Fail closed: no token means no listener, unless told so for loopback.
  if (token === undefined && oauth === undefined && !(options.auth === 'none' && loopback))
    throw new TokenRequiredError(host);
  let publicOrigin: string | undefined;
  if (options.publicUrl !== undefined) {
    const url = URL.canParse(options.publicUrl) ? new URL(options.publicUrl) : undefined;
    if (
      !url ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.pathname !== '/' ||
      url.search ||
      url.hash ||
      url.username
    )
      throw new TypeError(
        `listenHttp: publicUrl: ${JSON.stringify(options.publicUrl)} is not an http(s) origin`,
      );
    publicOrigin = url.origin;
  }
  for (const origin of options.allowedOrigins ?? [])
    if (normalizeOrigin(origin) === undefined)
      throw new TypeError(
        `listenHttp: allowedOrigins: ${JSON.stringify(origin)} is not an http(s) origin`,
      );
  // One identity for every holder of the static token, with the subject it was given.
  const staticTokenInfo: AuthInfo | undefined =
    token === undefined
      ? undefined
      : Object.freeze({
          kind: 'static-token',
          subject: options.tokenSubject ?? httpListenerDefaults.tokenSubject,
          clientId: undefined,
          scopes: Object.freeze([]),
          expiresAt: undefined,
          claims: Object.freeze({}),
          token,
        });
  const shown = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  const allowedHosts = [
    ...new Set([
      ...boundHostNames(host),
      ...(options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()),
    ]),
  ];
  const allowedOrigins = options.allowedOrigins ?? [];
  const maxBodyBytes = options.maxBodyBytes ?? streamableHttpDefaults.maxBodyBytes;
  const { tooLargeAdvice } = options;
  // What each request's credentials were verified as, for the handlers (`ctx.authInfo`).
  const verified = new WeakMap<IncomingMessage, AuthInfo>();
  const authInfo = (req: IncomingMessage) => verified.get(req);
  // A call the access policy refuses, alone on its POST: 403 step-up / 429 (access/). The
  // step-up asks for the scopes the token has as well, and names the endpoint's metadata.
  const errorStatus: ErrorStatus = (error, req) =>
    accessErrorStatus(
      error,
      req === undefined
        ? {}
        : {
            grantedScopes: verified.get(req)?.scopes ?? [],
            ...(oauth !== undefined
              ? { resourceMetadata: metadataUrlOf(req, endpointOf(pathOf(req))) }
              : {}),
          },
    );
  // Each named endpoint gets a handler of its own, with the options /mcp has.
  const router = options.endpoints
    ? new EndpointRouter(options.endpoints, {
        ...options.limits,
        allowedHosts,
        allowedOrigins,
        maxBodyBytes,
        authInfo,
        errorStatus,
      })
    : undefined;
  const listener = await listenStreamableHttp(gateway.server, {
    host: bindHost,
    port: options.port ?? 0,
    path: '/mcp',
    ...options.limits,
    allowedHosts,
    allowedOrigins,
    maxBodyBytes,
    authInfo,
    errorStatus,
    headersTimeoutMs: options.headersTimeoutMs ?? httpListenerDefaults.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? httpListenerDefaults.requestTimeoutMs,
    maxConnections: options.maxConnections ?? httpListenerDefaults.maxConnections,
    maxConnectionsPerAddress:
      options.maxConnectionsPerAddress ?? httpListenerDefaults.maxConnectionsPerAddress,
    intercept: (req, res, pathname) => {
      // Read once: Node's `headers` getter is a megamorphic lookup on every read.
      const headers = req.headers;
      // The same DNS-rebinding checks for /healthz as for /mcp. A refused request's
      // connection is closed: a refused client holds no connection open.
      const refused = refuseHostOrOrigin(req, allowedHosts, allowedOrigins, headers);
      if (refused) {
        refuse(res, 403, `Forbidden: ${refused}`, { connection: 'close' });
        return true;
      }
      if (oauth !== undefined && pathname.startsWith(PRM_PATH)) {
        serveMetadata(req, res, pathname.slice(PRM_PATH.length));
        return true;
      }
      const given = tokenOf(req, headers);
      if (tokenBytes !== undefined && given !== '' && isStaticToken(req, given, tokenBytes)) {
        verified.set(req, staticTokenInfo!);
        return route(req, res, pathname, headers);
      }
      if (oauth === undefined) {
        if (token !== undefined) {
          refuse(
            res,
            401,
            'mcpkit gateway: a valid bearer token is required (Authorization: Bearer <token>)',
            { 'www-authenticate': 'Bearer', connection: 'close' },
          );
          return true;
        }
        return route(req, res, pathname);
      }
      return verifyOAuth(req, res, pathname, given);
    },
  });
  /** The endpoint a path belongs to: a name, `undefined` for `/mcp` (and every other path). */
  function endpointOf(pathname: string): string | undefined {
    return router && pathname.startsWith('/mcp/') ? pathname.slice(5) : undefined;
  }
  function pathOf(req: IncomingMessage): string {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    return query < 0 ? url : url.slice(0, query);
  }
  function originOf(req: IncomingMessage): string {
    return publicOrigin ?? `http://${(req.headers.host ?? shownAddress()).toLowerCase()}`;
  }
  function shownAddress(): string {
    return `${shown}:${listener.url.port}`;
  }
  /** The endpoint's canonical URI (RFC 8707): each endpoint is a resource of its own. */
  function resourceOf(req: IncomingMessage, endpoint: string | undefined): string {
    return `${originOf(req)}/mcp${endpoint === undefined ? '' : `/${endpoint}`}`;
  }
  /** `resourceOf`, the same string as the connection's last request's when its Host and endpoint are. */
  function connectionResourceOf(req: IncomingMessage, endpoint: string | undefined): string {
    const last = connectionAuth.get(req.socket);
    if (last === undefined) return resourceOf(req, endpoint);
    const host = req.headers.host;
    if (last.resource !== undefined && last.host === host && last.endpoint === endpoint)
      return last.resource;
    last.host = host;
    last.endpoint = endpoint;
    last.resource = resourceOf(req, endpoint);
    return last.resource;
  }
  function metadataUrlOf(req: IncomingMessage, endpoint: string | undefined): string {
    return `${originOf(req)}${PRM_PATH}/mcp${endpoint === undefined ? '' : `/${endpoint}`}`;
  }
  /** RFC 9728 metadata: the root form describes `/mcp`; `/mcp/<name>` each endpoint. */
  function serveMetadata(req: IncomingMessage, res: ServerResponse, suffix: string) {
    let endpoint: string | undefined;
    if (suffix === '' || suffix === '/mcp') endpoint = undefined;
    else if (suffix.startsWith('/mcp/') && router && options.endpoints?.get(suffix.slice(5)))
      endpoint = suffix.slice(5);
    else {
      refuse(res, 404, 'Not Found: no such protected resource', {}, -32000);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      refuse(res, 405, 'GET only', { allow: 'GET, HEAD' });
      return;
    }
    const body = JSON.stringify(oauth!.metadataDocument(resourceOf(req, endpoint), endpoint));
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'max-age=300',
      'content-length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
  function verifyOAuth(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    given: string,
  ): boolean | Promise<boolean> {
    const endpoint = endpointOf(pathname);
    if (given === '') {
      refuse(res, 401, 'Unauthorized: a bearer token is required', {
        'www-authenticate': bearerChallenge({
          scopes: oauth!.requiredScopes(endpoint),
          resourceMetadata: metadataUrlOf(req, endpoint),
        }),
      });
      return true;
    }
    const resource = connectionResourceOf(req, endpoint);
    // A token verified before: answered in this turn, without a promise.
    const known = oauth!.verifiedBefore(given, resource);
    if (known !== undefined) return admit(req, res, pathname, endpoint, known);
    return verifyNow(req, res, pathname, endpoint, given, resource);
  }
  async function verifyNow(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    endpoint: string | undefined,
    given: string,
    resource: string,
  ): Promise<boolean> {
    let info: AuthInfo;
    try {
      info = await oauth!.verify(given, resource);
    } catch (error) {
      if (InvalidTokenError.isInstance(error)) {
        refuse(res, 401, `Unauthorized: ${error.reason}`, {
          'www-authenticate': bearerChallenge({
            error: 'invalid_token',
            description: error.reason,
            scopes: oauth!.requiredScopes(endpoint),
            resourceMetadata: metadataUrlOf(req, endpoint),
          }),
        });
        return true;
      }
      if (AuthorizationServerUnavailableError.isInstance(error)) {
        // Neither accepted nor blamed: the token may be good; try again later.
        refuse(
          res,
          503,
          'Service Unavailable: the authorization server could not be asked about the token',
          { 'retry-after': '5' },
        );
        return true;
      }
      throw error;
    }
    return admit(req, res, pathname, endpoint, info);
  }
  /** A verified token: 403 `insufficient_scope` without the endpoint's scopes, else routed. */
  function admit(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    endpoint: string | undefined,
    info: AuthInfo,
  ): boolean {
    const scopes = oauth!.requiredScopes(endpoint);
    const missing = scopes.length === 0 ? scopes : scopes.filter((s) => !info.scopes.includes(s));
    if (missing.length > 0) {
      refuse(res, 403, `Forbidden: the token lacks the scope ${missing.join(' ')}`, {
        'www-authenticate': insufficientScope(scopes, {
          resourceMetadata: metadataUrlOf(req, endpoint),
        }),
      });
      return true;
    }
    verified.set(req, info);
    return route(req, res, pathname);
  }
  /** After authentication: health, the named endpoints; false lets the listener serve /mcp. */
  function route(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    headers: IncomingHttpHeaders = req.headers,
  ): boolean {
    if (pathname === '/healthz' || pathname === '/readyz') {
      if (req.method !== 'GET') refuse(res, 405, 'GET only');
      else void health(res, pathname === '/readyz');
      return true;
    }
    const named = endpointOf(pathname);
    if (pathname !== '/mcp' && named === undefined) return false;
    // A body announced over the limit is refused before any of it is read; one without a
    // length is cut off by the handler as it arrives (413 as well).
    const announced = Number(headers['content-length']);
    if (announced > maxBodyBytes) {
      refuse(
        res,
        413,
        `Payload Too Large: the body is ${announced} bytes, over the gateway's ${maxBodyBytes}-byte limit${tooLargeAdvice ? ` (${tooLargeAdvice})` : ''}`,
        { connection: 'close' },
        -32600,
      );
      return true;
    }
    if (named !== undefined && !router!.handle(named, req, res))
      refuse(res, 404, 'Not Found: no such endpoint', {}, -32000);
    return named !== undefined;
  }
  /**
   * `/healthz`: 200 whatever the backends' states (the gateway itself answers: a probe that
   * restarts it would not bring a backend back); the body says which are down, and, with a
   * session store, whether it answers (`store`, `ready`). `/readyz`: the same body, 503 while the
   * store does not answer (a load balancer sends new requests to the other replicas).
   */
  async function health(res: ServerResponse, readiness: boolean): Promise<void> {
    const store = options.limits?.sessionStore;
    const body: Record<string, unknown> = { ...gateway.health() };
    let ready = true;
    if (store) {
      const error = await pingWithin(store, storePingMs);
      ready = error === undefined;
      body.store = ready ? { state: 'up' } : { state: 'unreachable', reason: error };
      body.ready = ready;
    }
    if (res.destroyed) return;
    res.writeHead(readiness && !ready ? 503 : 200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(body));
  }
  const close = async () => {
    await router?.close();
    await listener.close();
  };
  return {
    url: new URL(`http://${shown}:${listener.url.port}/mcp`),
    stats: () => listener.handler.stats(),
    close,
  };
}
