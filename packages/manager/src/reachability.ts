import { connect } from 'node:net';
import type { Clock } from './clock.js';

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

/**
 * Checks the endpoint every `intervalMs` while `waiting()` holds; calls `onopen` once its
 * port accepts a TCP connection. `ontimer` gets each pending timer (undefined while a
 * check runs), so the owner can cancel it.
 */
export function watchUntilOpen(
  endpoint: { host: string; port: number },
  intervalMs: number,
  deps: {
    clock: Pick<Clock, 'setTimeout'>;
    waiting: () => boolean;
    ontimer: (handle: unknown) => void;
    onopen: () => void;
  },
): void {
  const tick = () => {
    deps.ontimer(
      deps.clock.setTimeout(async () => {
        deps.ontimer(undefined);
        if (!deps.waiting()) return;
        const open = await tcpReachable(endpoint);
        if (!deps.waiting()) return;
        if (!open) return tick();
        deps.onopen();
      }, intervalMs),
    );
  };
  tick();
}
