import { AuthError } from './errors.js';
import { redact } from './redact.js';

/** RFC 9728 protected-resource metadata. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
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
  [key: string]: unknown;
}

export type FetchLike = typeof fetch;

/** GETs JSON; `undefined` on 4xx (the document is not there); throws on anything else. */
async function getJson(url: string, fetchFn: FetchLike, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchFn(url, {
      headers: { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
      redirect: 'follow',
    });
  } catch (cause) {
    throw new AuthError(
      `${what}: GET ${redact(url)} failed: ${(cause as Error).message}`,
      undefined,
      {
        cause,
      },
    );
  }
  if (res.status >= 400 && res.status < 500) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new AuthError(`${what}: GET ${redact(url)} → ${res.status}`);
  }
  try {
    return await res.json();
  } catch (cause) {
    throw new AuthError(`${what}: ${redact(url)} did not return JSON`, undefined, { cause });
  }
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
 * `undefined` when none exists (a 2025-03-26 server).
 */
export async function discoverProtectedResource(
  serverUrl: string | URL,
  fromChallenge: string | undefined,
  fetchFn: FetchLike = fetch,
): Promise<ProtectedResourceMetadata | undefined> {
  const server = new URL(serverUrl);
  const candidates: string[] = [];
  if (fromChallenge) candidates.push(new URL(fromChallenge, server).href);
  const path = server.pathname.replace(/\/$/, '');
  if (path) candidates.push(`${server.origin}/.well-known/oauth-protected-resource${path}`);
  candidates.push(`${server.origin}/.well-known/oauth-protected-resource`);
  for (const url of candidates) {
    const doc = (await getJson(url, fetchFn, 'protected-resource metadata')) as
      | ProtectedResourceMetadata
      | undefined;
    if (doc === undefined) continue;
    if (typeof doc?.resource !== 'string')
      throw new AuthError(`protected-resource metadata at ${redact(url)} has no "resource"`);
    return doc;
  }
  return undefined;
}

/**
 * Authorization-server metadata by RFC 8414 and OpenID Connect discovery, in the order the
 * MCP specification gives for issuers with and without a path. `undefined` when none.
 */
export async function discoverAuthorizationServer(
  issuer: string | URL,
  fetchFn: FetchLike = fetch,
  /** Check that the metadata names `issuer` (RFC 8414 3.3). Off only for 2025-03-26 servers. */
  checkIssuer = true,
): Promise<AuthorizationServerMetadata | undefined> {
  const u = new URL(issuer);
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
    const doc = (await getJson(url, fetchFn, 'authorization-server metadata')) as
      | AuthorizationServerMetadata
      | undefined;
    if (doc === undefined) continue;
    if (typeof doc?.token_endpoint !== 'string' || typeof doc.issuer !== 'string')
      throw new AuthError(
        `authorization-server metadata at ${redact(url)} lacks "issuer" or "token_endpoint"`,
      );
    // RFC 8414 3.3: the metadata must be the issuer's own (a trailing slash aside).
    if (checkIssuer && doc.issuer.replace(/\/$/, '') !== u.href.replace(/\/$/, '')) {
      mismatch = `metadata at ${redact(url)} names issuer "${doc.issuer}", not "${String(issuer)}"`;
      continue;
    }
    return doc;
  }
  if (mismatch) throw new AuthError(`refusing authorization-server metadata: ${mismatch}`);
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
 * `/authorize`, `/token` and `/register` there.
 */
export async function discover(
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  fetchFn: FetchLike = fetch,
): Promise<Discovered> {
  const prm = await discoverProtectedResource(serverUrl, resourceMetadataUrl, fetchFn);
  if (prm) {
    if (!resourceCovers(prm.resource, serverUrl)) {
      throw new AuthError(
        `the server's protected-resource metadata names resource "${prm.resource}", which is not ${canonicalResource(serverUrl)}; refusing to authorize for it`,
      );
    }
    const issuer = prm.authorization_servers?.[0];
    if (!issuer)
      throw new AuthError(
        `the protected-resource metadata of ${canonicalResource(serverUrl)} names no authorization server`,
      );
    const metadata = await discoverAuthorizationServer(issuer, fetchFn);
    if (!metadata)
      throw new AuthError(`no authorization-server metadata found for issuer ${issuer}`);
    return { resource: prm.resource, resourceMetadata: prm, metadata, fallback: false };
  }
  // 2025-03-26: metadata at the MCP server's origin, whose issuer nobody named beforehand
  // (that revision has no issuer to check it against).
  const origin = new URL(serverUrl).origin;
  const metadata = await discoverAuthorizationServer(origin, fetchFn, false);
  if (metadata)
    return {
      resource: canonicalResource(serverUrl),
      resourceMetadata: undefined,
      metadata,
      fallback: false,
    };
  return {
    resource: canonicalResource(serverUrl),
    resourceMetadata: undefined,
    metadata: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    },
    fallback: true,
  };
}
