import {
  AbortedError,
  ConnectionClosedError,
  ErrorCode,
  type JsonRpcId,
  type JsonRpcPeer,
  McpkitError,
  TimeoutError,
} from '@mcpkit/jsonrpc';
import { ClientMethod, MetaKey, Notification, type SubscriptionFilter } from '@mcpkit/protocol';
import type { Connection } from './connection.js';
import { UnsupportedByServerError } from './errors.js';
import { clientDefaults, type Subscription } from './options.js';
import { withMeta } from './request-pipeline.js';

type Ack = { resolve: (filter: SubscriptionFilter) => void; reject: (error: Error) => void };

/**
 * `subscriptions/listen` streams (2026-07-28): the ones a host opens with `listen()`, and
 * the client's own, which follows the list changes the host wants to hear of and the
 * resources it subscribed to, reopened whenever that set changes.
 */
export class Subscriptions {
  /** Listen requests waiting for `notifications/subscriptions/acknowledged`, by request id. */
  private readonly acks = new Map<JsonRpcId, Ack>();
  /** URIs followed through the client's own stream. */
  private readonly resources = new Set<string>();
  private managed: Subscription | undefined;
  private managedOpening: Promise<void> | undefined;

  constructor(
    private readonly conn: Connection,
    private readonly report: (error: Error) => void,
  ) {}

  /** Hears acknowledgements on `peer`; call once per connection. */
  register(peer: JsonRpcPeer): void {
    peer.setNotificationHandler(
      Notification.SubscriptionsAcknowledged,
      (p: { _meta?: Record<string, unknown>; notifications?: SubscriptionFilter }) => {
        const id = p?._meta?.[MetaKey.SubscriptionId] as JsonRpcId | undefined;
        const ack = id === undefined ? undefined : this.acks.get(id);
        if (!ack) return;
        this.acks.delete(id!);
        ack.resolve(p.notifications ?? {});
      },
    );
  }

  /** The connection ended: no acknowledgement will come. */
  connectionClosed(): void {
    for (const ack of this.acks.values())
      ack.reject(new ConnectionClosedError(`${this.conn.label}: the connection closed`));
    this.acks.clear();
  }

  /** Follow `uri` on the client's own stream (reopened with it added). */
  async follow(uri: string): Promise<void> {
    this.resources.add(uri);
    await this.relisten();
  }

  async unfollow(uri: string): Promise<void> {
    if (this.resources.delete(uri)) await this.relisten();
  }

  async listen(
    filter: SubscriptionFilter,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Subscription> {
    const conn = this.conn;
    const peer = conn.connectedPeer();
    if (conn.server!.era !== 'modern') {
      throw new UnsupportedByServerError(
        `${conn.label}: subscriptions/listen is a 2026-07-28 request; this server speaks ${conn.server!.version}: use subscribeResource() and onlistchanged instead`,
      );
    }
    const controller = new AbortController();
    const outer = options.signal;
    const onOuterAbort = () => controller.abort(outer!.reason);
    if (outer?.aborted) throw outer.reason;
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let id: JsonRpcId | undefined;
    let closing = false;
    let ended!: Promise<void>;
    const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
      const done = peer.request(
        ClientMethod.SubscriptionsListen,
        withMeta(conn.meta, { notifications: filter }, undefined),
        {
          timeoutMs: 0,
          signal: controller.signal,
          onid: (requestId) => {
            id = requestId;
            this.acks.set(requestId, { resolve, reject });
          },
        },
      );
      ended = done.then(
        () => undefined,
        (error: unknown) => {
          if (closing) return undefined;
          throw error;
        },
      );
      // Before the acknowledgement, an end of any kind fails listen().
      done.then(
        () =>
          reject(
            new McpkitError(
              ErrorCode.Protocol,
              `${conn.label}: the subscription ended before the server acknowledged it`,
            ),
          ),
        (error: unknown) => reject(error),
      );
    });
    const timeoutMs =
      options.timeoutMs ?? conn.options.requestTimeoutMs ?? clientDefaults.requestTimeoutMs;
    const timer = setTimeout(
      () =>
        controller.abort(
          new TimeoutError(
            `${conn.label}: no acknowledgement of subscriptions/listen within ${timeoutMs} ms`,
            timeoutMs,
          ),
        ),
      timeoutMs,
    );
    let notifications: SubscriptionFilter;
    try {
      notifications = await acknowledged;
    } catch (error) {
      if (id !== undefined) this.acks.delete(id);
      // The same end, already thrown to the caller: not an unhandled rejection besides.
      ended.catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    const closed = ended.finally(() => outer?.removeEventListener('abort', onOuterAbort));
    closed.catch(() => {}); // observed through `closed` by whoever cares
    return {
      id: id!,
      notifications,
      closed,
      close: async () => {
        closing = true;
        controller.abort(new AbortedError('subscription closed'));
        await closed.catch(() => {});
      },
    };
  }

  /** Whether the client needs its own stream: resources followed, or list changes wanted. */
  wantsManagedListen(): boolean {
    return (
      this.resources.size > 0 ||
      (this.conn.options.onlistchanged !== undefined && Object.keys(this.listChanges()).length > 0)
    );
  }

  /** (Re)opens the client's own listen stream with the list changes and URIs it follows. */
  async relisten(): Promise<void> {
    const previous = this.managedOpening;
    const run = (async () => {
      await previous?.catch(() => {});
      const old = this.managed;
      this.managed = undefined;
      await old?.close();
      if (!this.wantsManagedListen() || !this.conn.isConnected) return;
      const filter = this.listChanges();
      if (this.resources.size > 0) filter.resourceSubscriptions = [...this.resources];
      const subscription = await this.listen(filter);
      this.managed = subscription;
      subscription.closed.catch((error: unknown) => {
        if (this.managed === subscription) this.report(error as Error);
      });
    })();
    this.managedOpening = run;
    await run;
  }

  /** Closes the client's own stream. */
  async close(): Promise<void> {
    const managed = this.managed;
    this.managed = undefined;
    await managed?.close();
  }

  /** The list changes the server offers to announce, as a listen filter. */
  private listChanges(): SubscriptionFilter {
    const caps = this.conn.serverCapabilities ?? {};
    const offers = (c: unknown) =>
      (c as { listChanged?: boolean } | undefined)?.listChanged === true;
    const filter: SubscriptionFilter = {};
    if (offers(caps.tools)) filter.toolsListChanged = true;
    if (offers(caps.prompts)) filter.promptsListChanged = true;
    if (offers(caps.resources)) filter.resourcesListChanged = true;
    return filter;
  }
}
