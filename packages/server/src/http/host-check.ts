import type { IncomingMessage } from 'node:http';

/** Host names a local server answers to unless told otherwise. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

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

/**
 * DNS-rebinding protection: the `Host` header must name an allowed host, and an `Origin`,
 * when a browser sends one, must be an allowed origin (by default: http(s) on an allowed
 * host). Returns why the request is refused, or undefined.
 */
export function refuseHostOrOrigin(
  req: IncomingMessage,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[] | undefined,
): string | undefined {
  const host = req.headers.host;
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (hostname === undefined || !allowedHosts.includes(hostname)) {
    return `Host ${JSON.stringify(host ?? '')} is not allowed (allowedHosts: ${allowedHosts.join(', ')})`;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (allowedOrigins) {
    return allowedOrigins.includes(origin)
      ? undefined
      : `Origin ${JSON.stringify(origin)} is not allowed`;
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a URL`;
  }
  const ok =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    allowedHosts.includes(url.hostname.toLowerCase());
  return ok ? undefined : `Origin ${JSON.stringify(origin)} is not allowed`;
}
