import type { McpClient } from '@mcpkit/client';
import { RpcError } from '@mcpkit/jsonrpc';
import type { ResourceOwners } from './resource-owners.js';

export interface ResourceSubscriptionsOptions {
  /** Who owns each served URI (kept current by the gateway's sync). */
  owners: ResourceOwners;
  /** The backend's client while it is connected. */
  client: (server: string) => McpClient | undefined;
  /** Bounds each subscribe/unsubscribe sent to a backend. */
  timeoutMs: number;
  warn: (text: string) => void;
}

/**
 * The gateway's clients' resource subscriptions (`resources/subscribe`, the URIs of a
 * 2026-07-28 listen stream), forwarded to the backend that owns each URI: the backend
 * follows a URI while at least one subscriber does, and again after it reconnects. Its
 * `notifications/resources/updated` reach only the subscribed sessions (McpServer does that).
 */
export class ResourceSubscriptions {
  /** Served URI → who subscribed (sessions, listen streams). */
  private readonly subscribers = new Map<string, Set<object>>();
  /** Backend URIs subscribed on each backend client (a reconnected backend gets a new one). */
  private readonly followed = new WeakMap<McpClient, Set<string>>();

  constructor(private readonly options: ResourceSubscriptionsOptions) {}

  /** The backend that owns a served resource URI (a resource, or a URI of a template). */
  private backendOf(uri: string): { server: string; uri: string } | undefined {
    return this.options.owners.ownerOf(uri);
  }

  /** `resources/subscribe` from a client: the owning backend follows the URI for the first subscriber. */
  async subscribe(uri: string, subscriber: object): Promise<void> {
    const owner = this.backendOf(uri);
    if (!owner)
      throw new RpcError(
        -32602,
        `mcpkit gateway: no served resource matches "${uri}"; resources/list shows what is served`,
      );
    const set = this.subscribers.get(uri) ?? new Set<object>();
    this.subscribers.set(uri, set);
    set.add(subscriber);
    const client = this.options.client(owner.server);
    // A backend that is reconnecting is subscribed once it is back (resubscribe).
    if (!client) return;
    try {
      await this.follow(owner.server, client, owner.uri);
    } catch (error) {
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(uri);
      throw error;
    }
  }

  /** The last subscriber gone: the backend stops following the URI. */
  async unsubscribe(uri: string, subscriber: object): Promise<void> {
    const set = this.subscribers.get(uri);
    if (!set?.delete(subscriber) || set.size > 0) return;
    this.subscribers.delete(uri);
    let owner: { server: string; uri: string } | undefined;
    try {
      owner = this.backendOf(uri);
    } catch {
      return; // served by none now, so followed by none
    }
    const client = owner && this.options.client(owner.server);
    if (!owner || !client || !this.followed.get(client)?.delete(owner.uri)) return;
    await client
      .unsubscribeResource(owner.uri, { timeoutMs: this.options.timeoutMs })
      .catch((error: Error) =>
        this.options.warn(
          `server "${owner.server}": unsubscribing from ${owner.uri} failed: ${error.message}`,
        ),
      );
  }

  /** Subscribes a backend client to one of its URIs, once per client. */
  private async follow(server: string, client: McpClient, uri: string): Promise<void> {
    if (!client.serverCapabilities?.resources?.subscribe) return;
    const done = this.followed.get(client) ?? new Set<string>();
    this.followed.set(client, done);
    if (done.has(uri)) return;
    done.add(uri);
    await client.subscribeResource(uri, { timeoutMs: this.options.timeoutMs }).catch((error) => {
      done.delete(uri);
      throw new RpcError(
        -32603,
        `mcpkit gateway: server "${server}" refused the subscription to ${uri}: ${(error as Error).message}`,
      );
    });
  }

  /** After a (re)connect: the backend follows again every URI its resources have subscribers for. */
  async resubscribe(server: string, client: McpClient): Promise<void> {
    for (const uri of this.subscribers.keys()) {
      let owner: { server: string; uri: string } | undefined;
      try {
        owner = this.backendOf(uri);
      } catch {
        continue;
      }
      if (owner?.server !== server) continue;
      await this.follow(server, client, owner.uri).catch((error: Error) =>
        this.options.warn(error.message),
      );
    }
  }
}
