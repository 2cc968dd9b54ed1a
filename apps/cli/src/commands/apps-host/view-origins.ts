import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `mcpkit apps`: the dedicated origins of views that declare `_meta.ui.domain`.
 *
 * The extension leaves the domain's format to each host. This host takes a host name
 * (letters, digits, `-` and `.`, at most 253 characters) and gives every (server, domain)
 * pair its own listener on 127.0.0.1 with a port from the OS: the view then runs at
 * `http://127.0.0.1:<port>`, an origin of its own, apart from the host page and from any
 * other domain or server. A name cannot be served as itself on loopback, so the origin is
 * dedicated for the run, not stable across runs. Keyed by server too, so a server cannot
 * reach another server's view storage by declaring its domain.
 */
export type DomainGrant = { origin: string } | { declined: string };

/** More distinct (server, domain) pairs than this in one run are declined. */
export const MAX_VIEW_ORIGINS = 32;

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Why this host cannot give a view the domain it declared, or undefined when it can. */
export function domainRefusal(domain: string): string | undefined {
  if (!HOST_NAME.test(domain))
    return 'this host takes a host name (letters, digits, "-" and "."; at most 253 characters)';
  return undefined;
}

export class ViewOrigins {
  private readonly listeners = new Map<string, Promise<{ server: Server; origin: string }>>();

  /** `serve` answers every request that reaches a view origin; `origin` is the one it came to. */
  constructor(
    private readonly serve: (req: IncomingMessage, res: ServerResponse, origin: string) => void,
  ) {}

  /** The origin for `server`'s views of `domain`: created at the first view, then reused. */
  async originFor(server: string, domain: string): Promise<DomainGrant> {
    const refusal = domainRefusal(domain);
    if (refusal) return { declined: refusal };
    const key = `${server}\0${domain.toLowerCase()}`;
    let listener = this.listeners.get(key);
    if (!listener) {
      if (this.listeners.size >= MAX_VIEW_ORIGINS)
        return { declined: `this host gives at most ${MAX_VIEW_ORIGINS} view origins a run` };
      listener = listen(this.serve);
      this.listeners.set(key, listener);
      listener.catch(() => this.listeners.delete(key));
    }
    return { origin: (await listener).origin };
  }

  async close(): Promise<void> {
    const settled = await Promise.allSettled(this.listeners.values());
    this.listeners.clear();
    await Promise.all(
      settled.map((s) => {
        if (s.status !== 'fulfilled') return undefined;
        s.value.server.closeAllConnections();
        return new Promise<void>((resolve) => s.value.server.close(() => resolve()));
      }),
    );
  }
}

async function listen(
  serve: (req: IncomingMessage, res: ServerResponse, origin: string) => void,
): Promise<{ server: Server; origin: string }> {
  let origin = '';
  const server = createServer((req, res) => serve(req, res, origin));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin };
}
