import { checkEndpoint, checkMetadataEndpoints, showValue } from './endpoint.js';
import { AuthError } from './errors.js';
import { type FetchLike, fetchBounded, parseObject, type RequestContext } from './fetch-bounded.js';

export type { FetchLike } from './fetch-bounded.js';

/** RFC 9728 protected-resource metadata. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  /** RFC 9728 2: the resource takes DPoP-bound tokens only. */
  dpop_bound_access_tokens_required?: boolean;
  [key: string]: unknown;
}

/** RFC 8414 / OpenID Connect discovery metadata of an authorization server. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  /** RFC 9449 5.1: the algorithms it accepts DPoP proofs signed with. */
  dpop_signing_alg_values_supported?: string[];
  [key: string]: unknown;
}

/** Limits, deadline and labels for discovery (each defaults as in `authDefaults`). */
export type DiscoveryOptions = Partial<Omit<RequestContext, 'fetchFn'>>;

const contextOf = (
  fetchFn: FetchLike,
  options: DiscoveryOptions,
  label: string,
): RequestContext => ({
  ...options,
  fetchFn,
  label: options.label ?? label,
});

/** GETs a JSON object; `undefined` on 4xx (the document is not there); throws on anything else. */
async function getJson(
  ctx: RequestContext,
  url: string,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  const res = await fetchBounded(
    ctx,
    url,
    { headers: { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' } },
    { what, follow: { label: ctx.label, field: `the location of the ${what}` } },
  );
  if (res.status >= 400 && res.status < 500) return undefined;
  if (!res.ok) throw new AuthError(`${ctx.label}: ${what}: GET ${showValue(url)} → ${res.status}`);
  const doc = parseObject(res.text);
  if (!doc)
    throw new AuthError(
      `${ctx.label}: ${what}: ${showValue(res.url)} did not return a JSON object; the server's authorization setup is broken`,
    );
  return doc;
}

/** `https://h/a/b/` → `https://h/a/b` (no query, no fragment, no trailing slash). */
export function canonicalResource(url: string | URL): string {
  const u = new URL(url);
  u.hash = '';
  u.search = '';
  return u.href.replace(/\/$/, '');
}

/**
 * Whether a resource identifier from metadata covers the server URL: the same resource,
 * or a parent path of it (one authorization for a whole API).
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(canonicalResource(resource));
    b = new URL(canonicalResource(serverUrl));
  } catch {
    return false;
  }
  if (a.origin !== b.origin) return false;
  const ap = a.pathname.replace(/\/$/, '');
  const bp = b.pathname.replace(/\/$/, '');
  return ap === bp || ap === '' || bp.startsWith(`${ap}/`);
}

/**
 * Protected-resource metadata of an MCP server: the URL from the challenge's
 * `resource_metadata`, else the path-aware well-known URL, else the root one.
 * `undefined` when none exists (a 2025-03-26 server). The challenge's URL and the
 * document's `authorization_servers` must pass the endpoint rule (`checkEndpoint`).
 */
export async function discoverProtectedResource(
  serverUrl: string | URL,
  fromChallenge: string | undefined,
  fetchFn: FetchLike = fetch,
  options: DiscoveryOptions = {},
): Promise<ProtectedResourceMetadata | undefined> {
  const server = new URL(serverUrl);
  const ctx = contextOf(fetchFn, options, canonicalResource(server));
  const candidates: string[] = [];
  if (fromChallenge !== undefined)
    candidates.push(
      checkEndpoint(
        fromChallenge,
        {
          label: ctx.label,
          field: 'resource_metadata',
          where: `the WWW-Authenticate challenge of ${canonicalResource(server)}`,
        },
        server,
      ).href,
    );
  const path = server.pathname.replace(/\/$/, '');
  if (path) candidates.push(`${server.origin}/.well-known/oauth-protected-resource${path}`);
  candidates.push(`${server.origin}/.well-known/oauth-protected-resource`);
  for (const url of candidates) {
    const doc = await getJson(ctx, url, 'protected-resource metadata');
    if (doc === undefined) continue;
    const where = `the protected-resource metadata at ${showValue(url)}`;
    if (typeof doc.resource !== 'string')
      throw new AuthError(`${ctx.label}: ${where} has no "resource"`);
    const servers = doc.authorization_servers;
    if (servers !== undefined) {
      if (!Array.isArray(servers))
        throw new AuthError(`${ctx.label}: "authorization_servers" in ${where} is not a list`);
      servers.forEach((value, i) => {
        checkEndpoint(value, { label: ctx.label, field: `authorization_servers[${i}]`, where });
      });
    }
    if (doc.jwks_uri !== undefined)
      checkEndpoint(doc.jwks_uri, { label: ctx.label, field: 'jwks_uri', where });
    return doc as ProtectedResourceMetadata;
  }
  return undefined;
}

/**
 * Authorization-server metadata by RFC 8414 and OpenID Connect discovery, in the order the
 * MCP specification gives for issuers with and without a path. `undefined` when none.
 * Every endpoint the document names must pass the endpoint rule, or none is used.
 */
export async function discoverAuthorizationServer(
  issuer: string | URL,
  fetchFn: FetchLike = fetch,
  /** Check that the metadata names `issuer` (RFC 8414 3.3). Off only for 2025-03-26 servers. */
  checkIssuer = true,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata | undefined> {
  const ctx = contextOf(fetchFn, options, String(issuer));
  const u = checkEndpoint(String(issuer), {
    label: ctx.label,
    field: 'issuer',
    where: 'the authorization server to discover',
  });
  const path = u.pathname.replace(/\/$/, '');
  const candidates = path
    ? [
        `${u.origin}/.well-known/oauth-authorization-server${path}`,
        `${u.origin}/.well-known/openid-configuration${path}`,
        `${u.origin}${path}/.well-known/openid-configuration`,
      ]
    : [
        `${u.origin}/.well-known/oauth-authorization-server`,
        `${u.origin}/.well-known/openid-configuration`,
      ];
  let mismatch: string | undefined;
  for (const url of candidates) {
    const doc = await getJson(ctx, url, 'authorization-server metadata');
    if (doc === undefined) continue;
    const where = `the authorization-server metadata at ${showValue(url)}`;
    if (typeof doc.token_endpoint !== 'string' || typeof doc.issuer !== 'string')
      throw new AuthError(`${ctx.label}: ${where} lacks "issuer" or "token_endpoint"`);
    // RFC 8414 3.3: the metadata must be the issuer's own (a trailing slash aside).
    if (checkIssuer && doc.issuer.replace(/\/$/, '') !== u.href.replace(/\/$/, '')) {
      mismatch = `${where} names issuer "${showValue(doc.issuer)}", not "${showValue(String(issuer))}"`;
      continue;
    }
    checkMetadataEndpoints(doc, ctx.label, where);
    return doc as AuthorizationServerMetadata;
  }
  if (mismatch)
    throw new AuthError(`${ctx.label}: refusing authorization-server metadata: ${mismatch}`);
  return undefined;
}

/** What discovery found for one MCP server. */
export interface Discovered {
  /** The `resource` parameter to send (RFC 8707). */
  resource: string;
  resourceMetadata: ProtectedResourceMetadata | undefined;
  metadata: AuthorizationServerMetadata;
  /** True when the endpoints are the 2025-03-26 defaults (no metadata at all). */
  fallback: boolean;
}

/**
 * The whole discovery for an MCP server: protected-resource metadata (whose `resource`
 * must cover the server, or nothing further happens), then its authorization server's
 * metadata; or, for 2025-03-26 servers, metadata at the server's root, else the default
 * `/authorize`, `/token` and `/register` there. Every endpoint is checked before use.
 */
export async function discover(
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  fetchFn: FetchLike = fetch,
  options: DiscoveryOptions = {},
): Promise<Discovered> {
  const label = options.label ?? canonicalResource(serverUrl);
  const opts = { ...options, label };
  const prm = await discoverProtectedResource(serverUrl, resourceMetadataUrl, fetchFn, opts);
  if (prm) {
    if (!resourceCovers(prm.resource, serverUrl)) {
      throw new AuthError(
        `${label}: the server's protected-resource metadata names resource "${showValue(prm.resource)}", which is not ${canonicalResource(serverUrl)}; refusing to authorize for it`,
      );
    }
    const issuer = prm.authorization_servers?.[0];
    if (!issuer)
      throw new AuthError(
        `${label}: the protected-resource metadata of ${canonicalResource(serverUrl)} names no authorization server`,
      );
    const metadata = await discoverAuthorizationServer(issuer, fetchFn, true, opts);
    if (!metadata)
      throw new AuthError(
        `${label}: no authorization-server metadata found for issuer ${showValue(issuer)}`,
      );
    return { resource: prm.resource, resourceMetadata: prm, metadata, fallback: false };
  }
  // 2025-03-26: metadata at the MCP server's origin, whose issuer nobody named beforehand
  // (that revision has no issuer to check it against).
  const origin = new URL(serverUrl).origin;
  const metadata = await discoverAuthorizationServer(origin, fetchFn, false, opts);
  if (metadata)
    return {
      resource: canonicalResource(serverUrl),
      resourceMetadata: undefined,
      metadata,
      fallback: false,
    };
  const defaults: AuthorizationServerMetadata = {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
  };
  checkMetadataEndpoints(defaults, label, `the 2025-03-26 default endpoints of ${origin}`);
  return {
    resource: canonicalResource(serverUrl),
    resourceMetadata: undefined,
    metadata: defaults,
    fallback: true,
  };
}
