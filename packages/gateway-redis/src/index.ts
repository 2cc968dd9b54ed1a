import { McpkitError } from '@mcpkit/jsonrpc';
import type {
  SessionBusMessage,
  SessionRecord,
  SessionStore,
  StoredEvent,
  StreamOwner,
} from '@mcpkit/server';
import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

export interface RedisSessionStoreOptions {
  /**
   * `redis://[:password@]host:port/db` (or `rediss://` for TLS), or `unix:///path/to/redis.sock`;
   * the default is Redis's on 127.0.0.1.
   */
  url?: string;
  /** More ioredis options (password, TLS, timeouts). */
  redis?: RedisOptions;
  /**
   * A Redis Cluster: its startup nodes (`url` is not used then) and more ioredis Cluster
   * options. Every key of a session hashes to one slot, so each command of the store runs on
   * one node.
   */
  cluster?: { nodes: ClusterNode[]; options?: ClusterOptions };
  /** Prefix of every key and channel: one per deployment sharing a Redis. */
  prefix?: string;
  /** Time a command waits for Redis before it fails, in ms. */
  commandTimeoutMs?: number;
  /**
   * Commands sent in one turn of the event loop go out as one pipeline (ioredis's
   * `enableAutoPipelining`): concurrent requests share one write to Redis, and each command
   * still succeeds or fails on its own. Off by default: it costs the replica more CPU than
   * it saves (ioredis's pipeline bookkeeping per command outweighs the writes saved: the
   * store's own CPU per call was 1.12× at 64 calls in flight, 1.95× at one), while Redis
   * spends less (about 0.7× per call). For a Redis that many replicas load more than their
   * own CPU (bench/README.md, "Scale-out row").
   */
  autoPipelining?: boolean;
}

export const redisSessionStoreDefaults = {
  url: 'redis://127.0.0.1:6379',
  prefix: 'mcpkit:',
  commandTimeoutMs: 2000,
  autoPipelining: false,
} as const;

/**
 * A store URL that ioredis would misread, refused before any connection: ioredis takes
 * `redis:` and `rediss:` URLs; `unix:` ones (a socket path, `?db=` optional) become `path`.
 */
export class RedisUrlError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway-redis.RedisUrlError';
  override readonly name: string = 'RedisUrlError';
  /** The URL given, its password replaced by `***`. */
  readonly url: string;
  constructor(url: string) {
    const shown = redactUrl(url);
    super(
      'MCPKIT_REDIS_URL_INVALID',
      `not a Redis URL: ${JSON.stringify(shown)} (redis://host:port/db, rediss://…, or unix:///path/to/redis.sock)`,
    );
    this.url = shown;
  }
}

/** A URL as it may be shown: its password replaced by `***`. */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, ':***@');
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.href;
}

/** What ioredis connects with for `url`: a URL it reads, or a unix socket's options. */
export function redisConnection(url: string): { url?: string; options: RedisOptions } {
  const u = URL.canParse(url) ? new URL(url) : undefined;
  if (u?.protocol === 'redis:' || u?.protocol === 'rediss:') return { url, options: {} };
  if (u?.protocol === 'unix:' && u.pathname.length > 1 && !u.host) {
    const db = u.searchParams.get('db');
    const options: RedisOptions = { path: decodeURIComponent(u.pathname) };
    if (db !== null) {
      if (!/^\d{1,2}$/.test(db)) throw new RedisUrlError(url);
      options.db = Number(db);
    }
    if (u.password) options.password = decodeURIComponent(u.password);
    return { options };
  }
  throw new RedisUrlError(url);
}

/**
 * One round trip for a GET-stream message: the session's next seq, the event kept (bounded,
 * expiring, listed in the session's key index) and published, atomically, so that seq order
 * is publish order. KEYS: counter, log, index; ARGV: data, ttl, max, channel.
 */
const appendStandaloneScript = `
local seq = redis.call('INCR', KEYS[1])
local event = cjson.encode({stream = 0, seq = seq, prev = seq - 1, data = ARGV[1], final = false})
redis.call('RPUSH', KEYS[2], event)
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PUBLISH', ARGV[4], '{"kind":"standalone","event":' .. event .. '}')
return event
`;

/**
 * A POST stream's event, in one command (one round trip, and one command for ioredis to
 * encode instead of four): kept, bounded, expiring, and published, the message built here
 * around the event's text. The stream's first event lists its log in the session's key
 * index (extended by a touch, deleted with the session): opening a stream writes nothing
 * (its owner is in its event ids). With an end TTL (the stream's last event), the log (and
 * an owner key, kept only for owners too long for event ids) expire after it instead and
 * move from the session's key index to its index of ended streams (deleted with the
 * session, never extended). KEYS: log, owner, index, ended index; ARGV: event text, ttl,
 * max, channel, end ttl or ''.
 */
const appendEventScript = `
local length = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
if ARGV[5] == '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if length == 1 then
    redis.call('SADD', KEYS[3], KEYS[1])
    redis.call('PEXPIRE', KEYS[3], ARGV[2])
  end
else
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('SREM', KEYS[3], KEYS[1], KEYS[2])
  redis.call('SADD', KEYS[4], KEYS[1])
  if redis.call('PEXPIRE', KEYS[2], ARGV[5]) == 1 then
    redis.call('SADD', KEYS[4], KEYS[2])
  end
  redis.call('PEXPIRE', KEYS[4], ARGV[5])
end
redis.call('PUBLISH', ARGV[4], '{"kind":"event","event":' .. ARGV[1] .. '}')
`;

/**
 * Who answers a POST stream whose owner is too long for its event ids, in one command: the
 * owner with its TTL, and both of the stream's keys in the session's key index. KEYS:
 * owner, index, log; ARGV: owner text, ttl.
 */
const openStreamScript = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], KEYS[1], KEYS[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
`;

/** A record read back from Redis is checked before a session is built on it. */
function parseRecord(text: string | null): SessionRecord | undefined {
  if (text === null) return undefined;
  const r = JSON.parse(text) as Partial<SessionRecord>;
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.protocolVersion !== 'string' ||
    typeof r.clientCapabilities !== 'object' ||
    r.clientCapabilities === null ||
    !Array.isArray(r.subscriptions) ||
    !r.subscriptions.every((u) => typeof u === 'string')
  )
    throw new TypeError('the session record in Redis is malformed');
  return r as SessionRecord;
}

/**
 * A `SessionStore` in Redis, for replicas of a gateway (or any `@mcpkit/server` HTTP
 * endpoint) on several processes or machines: session records as keys with a TTL, each
 * POST stream's event log as a list (its owner is in its event ids; a key only when too long
 * for them), the per-session bus over pub/sub
 * (a second connection), replica heartbeats as keys that expire. Every key of a session
 * carries the session id as a hash tag (`{<session>}`), and each script and multi-key
 * command names its keys in KEYS, all of one session: a Redis Cluster serves them on one
 * node (one slot).
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: Redis;
  private readonly sub: Redis;
  private readonly prefix: string;
  private readonly listeners = new Map<string, Set<(message: SessionBusMessage) => void>>();
  /** Whether the store talks to a Redis Cluster through the Cluster client. */
  private readonly clustered: boolean;
  /** The command connection's socket while its writes are held for this turn of the loop. */
  private corked: Redis['stream'] | undefined;
  /** `appendEvent`s sent and not answered yet. */
  private unanswered = 0;
  /** The Lua commands defined on the command connection (ioredis adds them at run time). */
  private readonly scripts: Record<
    'mcpkitAppendStandalone' | 'mcpkitAppendEvent' | 'mcpkitOpenStream',
    (...args: (string | number)[]) => Promise<string>
  >;

  constructor(options: RedisSessionStoreOptions = {}) {
    const d = redisSessionStoreDefaults;
    this.prefix = options.prefix ?? d.prefix;
    const connection = redisConnection(options.url ?? d.url);
    const enableAutoPipelining = options.autoPipelining ?? d.autoPipelining;
    const redisOptions: RedisOptions = {
      commandTimeout: options.commandTimeoutMs ?? d.commandTimeoutMs,
      maxRetriesPerRequest: 1,
      enableAutoPipelining,
      ...connection.options,
      ...options.redis,
    };
    const { cluster } = options;
    this.clustered = cluster !== undefined;
    const open = (): Redis => {
      if (cluster) {
        const { commandTimeout, maxRetriesPerRequest, password, tls, username } = redisOptions;
        // The store calls only what both clients have (commands, scripts, pipelines of one
        // slot, pub/sub, events, quit): the Cluster client stands in for a Redis one.
        return new Cluster(cluster.nodes, {
          enableAutoPipelining,
          ...cluster.options,
          redisOptions: {
            commandTimeout,
            maxRetriesPerRequest,
            ...(password !== undefined ? { password } : {}),
            ...(username !== undefined ? { username } : {}),
            ...(tls !== undefined ? { tls } : {}),
            ...cluster.options?.redisOptions,
          },
        }) as unknown as Redis;
      }
      return connection.url === undefined
        ? new Redis(redisOptions)
        : new Redis(connection.url, redisOptions);
    };
    this.redis = open();
    this.redis.defineCommand('mcpkitAppendStandalone', {
      numberOfKeys: 3,
      lua: appendStandaloneScript,
    });
    this.redis.defineCommand('mcpkitAppendEvent', { numberOfKeys: 4, lua: appendEventScript });
    this.redis.defineCommand('mcpkitOpenStream', { numberOfKeys: 3, lua: openStreamScript });
    this.scripts = this.redis as unknown as typeof this.scripts;
    this.sub = open();
    // Connection trouble is a failed command for the request that needed it, not a crash.
    this.redis.on('error', () => {});
    this.sub.on('error', () => {});
    this.sub.on('message', (channel: string, text: string) => {
      const listeners = this.listeners.get(channel.slice(this.prefix.length + 2));
      if (!listeners) return;
      let message: SessionBusMessage;
      try {
        message = JSON.parse(text) as SessionBusMessage;
      } catch {
        return;
      }
      for (const l of listeners) l(message);
    });
  }

  /**
   * A key of one session: `<prefix>{<session>}:<kind>[:<stream>]`. The braces are a Redis
   * Cluster hash tag: every key of a session hashes to one slot, so that a script or a
   * command over several of them runs on one node (a cluster refuses one that spans slots).
   */
  private key(kind: string, sessionId: string, stream?: number): string {
    const base = `${this.prefix}{${sessionId}}:${kind}`;
    return stream === undefined ? base : `${base}:${stream}`;
  }

  private channel(channel: string): string {
    return `${this.prefix}c:${channel}`;
  }

  async saveSession(sessionId: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.redis.set(this.key('s', sessionId), JSON.stringify(record), 'PX', ttlMs);
  }

  async loadSession(sessionId: string): Promise<SessionRecord | undefined> {
    return parseRecord(await this.redis.get(this.key('s', sessionId)));
  }

  async touchSession(sessionId: string, ttlMs: number): Promise<void> {
    const index = this.key('k', sessionId);
    const keys = await this.redis.smembers(index);
    const p = this.redis.pipeline().pexpire(this.key('s', sessionId), ttlMs).pexpire(index, ttlMs);
    for (const k of keys) p.pexpire(k, ttlMs);
    await p.exec();
  }

  async deleteSession(sessionId: string): Promise<void> {
    const index = this.key('k', sessionId);
    const delivered = this.key('d', sessionId);
    const keys = await this.redis.sunion(index, delivered);
    await this.redis.del(this.key('s', sessionId), index, delivered, ...keys);
  }

  async openStream(
    sessionId: string,
    stream: number,
    owner: StreamOwner,
    ttlMs: number,
  ): Promise<void> {
    await this.scripts.mcpkitOpenStream(
      this.key('o', sessionId, stream),
      this.key('k', sessionId),
      this.key('e', sessionId, stream),
      JSON.stringify(owner),
      ttlMs,
    );
  }

  async streamOwner(sessionId: string, stream: number): Promise<StreamOwner | undefined> {
    const text = await this.redis.get(this.key('o', sessionId, stream));
    if (text === null) return undefined;
    const o = JSON.parse(text) as Partial<StreamOwner>;
    if (
      typeof o?.replica !== 'string' ||
      (typeof o.requestId !== 'string' && typeof o.requestId !== 'number')
    )
      throw new TypeError('the stream owner in Redis is malformed');
    return o as StreamOwner;
  }

  async appendEvent(
    sessionId: string,
    event: StoredEvent,
    ttlMs: number,
    maxEvents: number,
    endTtlMs?: number,
  ): Promise<void> {
    // Alone (one call in flight), an event goes out at once; with others still unanswered,
    // it joins the turn's one write.
    if (this.unanswered > 0) this.coalesceWrites();
    this.unanswered++;
    try {
      // The event's text is encoded once, here; the published message is built around it.
      await this.scripts.mcpkitAppendEvent(
        this.key('e', sessionId, event.stream),
        this.key('o', sessionId, event.stream),
        this.key('k', sessionId),
        this.key('d', sessionId),
        JSON.stringify(event),
        ttlMs,
        maxEvents,
        this.channel(`${sessionId}#${event.stream}`),
        event.final && endTtlMs !== undefined ? endTtlMs : '',
      );
    } finally {
      this.unanswered--;
    }
  }

  /**
   * Holds the command connection's writes until the end of this turn of the loop: the events
   * of every call answered in it (and any command sent with them, in order) reach Redis in one
   * write, and Redis answers them in one. Each is still a command of its own, of one session
   * (one slot), as a cluster or a cluster proxy needs. The Cluster client has a connection per
   * node: its writes are left as they are.
   */
  private coalesceWrites(): void {
    if (this.corked !== undefined || this.clustered) return;
    const socket = this.redis.stream;
    if (this.redis.status !== 'ready' || socket.writableCorked > 0) return;
    socket.cork();
    this.corked = socket;
    setImmediate(() => {
      this.corked = undefined;
      socket.uncork();
    });
  }

  async appendStandalone(
    sessionId: string,
    data: string,
    ttlMs: number,
    maxEvents: number,
  ): Promise<StoredEvent> {
    const text = await this.scripts.mcpkitAppendStandalone(
      this.key('n', sessionId),
      this.key('e', sessionId, 0),
      this.key('k', sessionId),
      data,
      ttlMs,
      maxEvents,
      this.channel(sessionId),
    );
    return JSON.parse(text) as StoredEvent;
  }

  async eventsAfter(sessionId: string, stream: number, seq: number): Promise<StoredEvent[]> {
    const texts = await this.redis.lrange(this.key('e', sessionId, stream), 0, -1);
    return texts.map((t) => JSON.parse(t) as StoredEvent).filter((e) => e.seq > seq);
  }

  async publish(channel: string, message: SessionBusMessage): Promise<void> {
    await this.redis.publish(this.channel(channel), JSON.stringify(message));
  }

  async subscribe(
    channel: string,
    listener: (message: SessionBusMessage) => void,
  ): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.sub.subscribe(this.channel(channel));
    }
    set.add(listener);
    const own = set;
    return async () => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(channel) === own) {
        this.listeners.delete(channel);
        await this.sub.unsubscribe(this.channel(channel));
      }
    };
  }

  async heartbeat(replica: string, ttlMs: number): Promise<void> {
    await this.redis.set(`${this.prefix}r:${replica}`, '1', 'PX', ttlMs);
  }

  async isAlive(replica: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}r:${replica}`)) === 1;
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.redis.quit(), this.sub.quit()]);
  }
}
