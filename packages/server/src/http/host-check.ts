import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Host names a local server answers to unless told otherwise. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The last `Host` header `refuseHostOrOrigin` read and its host name: a client sends the
 * same one with every request, and each request's check (the listener's and the handler's)
 * then costs a string comparison instead of a trim, a lowercasing and a slice.
 */
let lastHost = '';
let lastHostname: string | undefined;

/** `hostnameOf` for a `Host` header, remembered for the next request with the same one. */
function hostnameOfHost(host: string): string | undefined {
  if (host !== lastHost) {
    lastHostname = hostnameOf(host);
    lastHost = host;
  }
  return lastHostname;
}

/** The host name of a `Host` header or an origin, lowercased, without the port. */
export function hostnameOf(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  if (text === '') return undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    return end === -1 ? undefined : text.slice(0, end + 1);
  }
  const colon = text.indexOf(':');
  return colon === -1 ? text : text.slice(0, colon);
}

/** An origin as the URL parser serializes it (`http://localhost:3000`), or undefined. */
export function normalizeOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.origin;
}

/**
 * The origin of the request's own target: its scheme (https on a TLS socket) and its
 * `Host` header, port included.
 */
function ownOrigin(req: IncomingMessage, host: string): string | undefined {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return normalizeOrigin(`${encrypted ? 'https' : 'http'}://${host.trim()}`);
}

/**
 * DNS-rebinding and cross-site protection: the `Host` header must name an allowed host, and
 * an `Origin`, when a browser sends one, must be the server's own origin (scheme, host and
 * port of the request's target) or one of `allowedOrigins` (compared as the URL parser
 * serializes origins). A page on `http://localhost:3000` is not the origin of a server on
 * `http://localhost:8765`. Returns why the request is refused, or undefined. `headers` is
 * `req.headers` (a caller that has them passes them: Node's getter is a megamorphic lookup
 * on every read).
 */
export function refuseHostOrOrigin(
  req: IncomingMessage,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[] | undefined,
  headers: IncomingHttpHeaders = req.headers,
): string | undefined {
  const host = headers.host;
  const hostname = host === undefined ? undefined : hostnameOfHost(host);
  if (host === undefined || hostname === undefined || !allowedHosts.includes(hostname)) {
    return `Host ${JSON.stringify(host ?? '')} is not allowed (allowedHosts: ${allowedHosts.join(', ')})`;
  }
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  const given = normalizeOrigin(origin);
  if (given === undefined) return `Origin ${JSON.stringify(origin)} is not an http(s) origin`;
  if (given === ownOrigin(req, host)) return undefined;
  if (allowedOrigins?.some((o) => normalizeOrigin(o) === given)) return undefined;
  return `Origin ${JSON.stringify(origin)} is not allowed (only the server's own origin${allowedOrigins?.length ? ' and allowedOrigins' : ''})`;
}
