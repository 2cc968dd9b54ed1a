import { connect } from 'node:net';

/** host and port of an http(s)/ws(s) URL, or undefined. */
export function endpointOf(url: string | undefined): { host: string; port: number } | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const defaults: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
    const fallback = defaults[u.protocol];
    if (fallback === undefined) return undefined;
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : fallback };
  } catch {
    return undefined;
  }
}

/** Whether a TCP connection to the endpoint opens within `timeoutMs` (no byte is sent). */
export function tcpReachable(
  endpoint: { host: string; port: number },
  timeoutMs = 1_000,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    const done = (ok: boolean) => {
      socket.destroy();
      clearTimeout(timer);
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref?.();
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
