import { InvalidResultError, InvalidToolError, type McpClient } from '@mcpkit/client';
import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from '@mcpkit/jsonrpc';
import type { GetPromptResult, Prompt, Resource, ResourceTemplate, Tool } from '@mcpkit/protocol';
import { modelVisible } from './apps.js';
import { isConnectionLost } from './classify.js';
import type { Clock } from './clock.js';
import { type HostCommand, makeHostCommand } from './commands.js';
import type { Emitter } from './emitter.js';
import { type HostTool, makeHostTool, type ToolCaller } from './host-tool.js';
import type { ManagerLimits } from './limits.js';
import { diffLists, ListStore, type ServerLists } from './list-store.js';
import { hostName } from './names.js';
import type { HostResource } from './resources.js';
import type { ListFailure, ListNextStep, ManagerEvents, ToolListIssue } from './state.js';

export type ListKind = 'tools' | 'prompts' | 'resources';
export const ALL_KINDS: readonly ListKind[] = Object.freeze(['tools', 'prompts', 'resources']);

/** The key of one server's list of one kind (fetches running, failures). */
const listKey = (server: string, kind: ListKind) => `${server}\0${kind}`;

interface Published {
  tools: HostTool[];
  prompts: HostCommand[];
  resources: HostResource[];
  /** The same lists as the server gave them (templates too), from its last fetches. */
  listed?: ServerListing;
}

/**
 * A server's four lists exactly as it listed them (titles, icons, annotations, `_meta`), in
 * its order: what the manager last fetched. A list that failed is empty (the server's state
 * says which: `degraded`).
 */
export interface ServerListing {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

const EMPTY_LISTING: ServerListing = Object.freeze({
  tools: [],
  prompts: [],
  resources: [],
  templates: [],
});

const json = (v: unknown) => JSON.stringify(v);

/**
 * Each server's tools, prompts and resources: fetched after every (re)connect, cached
 * (LRU), refetched after `list_changed` (debounced, with a ceiling), and diffed into
 * `toolschange` / `promptschange` / `resourceschange` events.
 */
export class Catalog {
  readonly lists: ListStore;
  private readonly published = new Map<string, Published>();
  private readonly pending = new Map<
    string,
    { kinds: Set<ListKind>; timer: unknown; firstAt: number }
  >();
  /** Tool lists a lazily started server is known by (from the disk cache). */
  readonly warm = new Map<string, Tool[]>();
  /** Fetches running, per server and kind: a read waits for one instead of sending another. */
  private readonly fetching = new Map<string, Promise<void>>();
  /** Why the last fetch of a list failed, per server and kind, until one succeeds. */
  private readonly failures = new Map<string, ListFailure & { failuresInARow: number }>();
  /** Tools the server's last tools/list had that the client repaired or left out. */
  private readonly toolIssues = new Map<string, readonly ToolListIssue[]>();
  /** Issues the client reports while a tools/list is under way, per server. */
  private readonly collecting = new Map<string, ToolListIssue[]>();
  /** Lists not prefetched that a host has read, per server: followed from then on. */
  private readonly followed = new Map<string, Set<ListKind>>();

  constructor(
    private readonly deps: {
      limits: ManagerLimits;
      clock: Clock;
      events: Emitter<ManagerEvents>;
      callTool: ToolCaller;
      getPrompt: (
        server: string,
        prompt: string,
      ) => (
        args: Record<string, string>,
        options?: { signal?: AbortSignal; timeoutMs?: number },
      ) => Promise<GetPromptResult>;
      onTools?: (server: string, tools: Tool[]) => void;
      /** A list of the server failed, or one that had failed was fetched again (its health). */
      onHealth?: (server: string, client: McpClient) => void;
      /** The lists fetched as soon as a server connects (the others on first use). */
      prefetch?: readonly ListKind[];
    },
  ) {
    this.lists = new ListStore(deps.limits.listCacheServers);
  }

  hostTool(server: string, tool: Tool, name = hostName(server, tool.name)): HostTool {
    return makeHostTool(server, tool, name, this.deps.limits.descriptionChars, this.deps.callTool);
  }

  hostCommand(server: string, prompt: Prompt, name = hostName(server, prompt.name)): HostCommand {
    return makeHostCommand(
      server,
      prompt,
      name,
      this.deps.limits.descriptionChars,
      this.deps.getPrompt(server, prompt.name),
    );
  }

  /** The lists to fetch when a server connects. */
  get prefetch(): readonly ListKind[] {
    return this.deps.prefetch ?? ALL_KINDS;
  }

  /** What a (re)connect of `server` fetches: the prefetched lists, and those read since. */
  private followedBy(server: string): readonly ListKind[] {
    const read = this.followed.get(server);
    if (!read) return this.prefetch;
    return ALL_KINDS.filter((k) => this.prefetch.includes(k) || read.has(k));
  }

  /**
   * Fetches lists afresh from a connected server and publishes what changed; by default
   * the lists a connect fetches. `renew` (a new connection or session): every list held for
   * the server is dropped first, so no read answers from the old connection's lists; the
   * lists published before stay the base of the diff, so an unchanged list announces
   * nothing.
   */
  async refresh(
    server: string,
    client: McpClient,
    kinds?: readonly ListKind[],
    options?: { renew?: boolean },
  ): Promise<void> {
    kinds ??= this.followedBy(server);
    if (options?.renew) {
      this.lists.drop(server);
      const entry = this.pending.get(server);
      if (entry?.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
      this.pending.delete(server);
    }
    await Promise.all(
      kinds.map((kind) => {
        const key = listKey(server, kind);
        const fetch = this.fetchKind(server, client, kind).finally(() => {
          if (this.fetching.get(key) === fetch) this.fetching.delete(key);
        });
        this.fetching.set(key, fetch);
        return fetch;
      }),
    );
    this.publish(server, kinds);
  }

  private async fetchKind(server: string, client: McpClient, kind: ListKind): Promise<void> {
    const caps = client.serverCapabilities ?? {};
    const fresh = { fresh: true };
    const key = listKey(server, kind);
    try {
      if (kind === 'tools') {
        const issues: ToolListIssue[] = [];
        this.collecting.set(server, issues);
        let tools: Tool[];
        try {
          tools = caps.tools ? await client.listTools(fresh) : [];
        } finally {
          if (this.collecting.get(server) === issues) this.collecting.delete(server);
        }
        const before = this.toolIssues.get(server);
        if (issues.length > 0) this.toolIssues.set(server, Object.freeze(issues));
        else this.toolIssues.delete(server);
        // Diffs and fingerprints of a list recurse (JSON.stringify): too deep a list (from
        // a transport that does not check depth, e.g. in-process) fails here, typed.
        assertJsonDepth(tools, DEFAULT_MAX_JSON_DEPTH, `server "${server}": its tools list`);
        this.lists.set(server, 'tools', tools);
        this.warm.delete(server);
        this.deps.onTools?.(server, tools);
        if ((before?.length ?? 0) + issues.length > 0) this.deps.onHealth?.(server, client);
      } else if (kind === 'prompts') {
        const prompts = caps.prompts ? await client.listPrompts(fresh) : [];
        assertJsonDepth(prompts, DEFAULT_MAX_JSON_DEPTH, `server "${server}": its prompts list`);
        this.lists.set(server, 'prompts', prompts);
      } else {
        this.lists.set(
          server,
          'resources',
          caps.resources ? await client.listResources(fresh) : [],
        );
        this.lists.set(
          server,
          'templates',
          caps.resources ? await client.listResourceTemplates(fresh).catch(() => []) : [],
        );
      }
      if (this.failures.delete(key)) this.deps.onHealth?.(server, client);
    } catch (error) {
      this.failed(server, client, kind, error as Error);
    }
  }

  /**
   * A fetch failed: kept with when the list may be asked again on a read (doubling per
   * failure in a row, from `listRetryMs` up to `listRetryMaxMs`); a connect or a
   * `list_changed` fetches it again at once.
   */
  private failed(server: string, client: McpClient, kind: ListKind, error: Error): void {
    const key = listKey(server, kind);
    const now = this.deps.clock.now();
    const inARow = (this.failures.get(key)?.failuresInARow ?? 0) + 1;
    const { listRetryMs, listRetryMaxMs } = this.deps.limits;
    const retryAt = now + Math.min(listRetryMs * 2 ** (inARow - 1), listRetryMaxMs);
    const facts = error as { code?: unknown; rpcCode?: unknown };
    this.failures.set(key, {
      list: kind,
      error,
      message: error.message,
      ...(typeof facts.code === 'string' ? { code: facts.code } : {}),
      ...(typeof facts.rpcCode === 'number' ? { rpcCode: facts.rpcCode } : {}),
      failure: {
        kind: 'list-failed',
        list: kind,
        ...(typeof facts.code === 'string' ? { code: facts.code } : {}),
        ...(typeof facts.rpcCode === 'number' ? { rpcCode: facts.rpcCode } : {}),
      },
      failedAt: now,
      retryAt,
      nextStep: nextStepFor(error, retryAt),
      failuresInARow: inARow,
    });
    this.deps.events.emit('warning', {
      server,
      error: new Error(`server "${server}": listing ${kind} failed: ${error.message}`, {
        cause: error,
      }),
    });
    this.deps.onHealth?.(server, client);
  }

  /**
   * A tool the client repaired or left out while it listed the server's tools; true when it is
   * news (not already so in the server's last list), so that a warning is given once.
   */
  noteToolIssue(server: string, error: unknown): boolean {
    if (!InvalidToolError.isInstance(error)) return false;
    const issue = Object.freeze({
      tool: error.toolName,
      action: error.action,
      reason: error.reason,
    });
    this.collecting.get(server)?.push(issue);
    // Known from the server's last list: the same tool, repaired or left out for the same
    // reason, is not news (every fetch of an unchanged list would warn again).
    return !(this.toolIssues.get(server) ?? []).some(
      (i) => i.tool === issue.tool && i.action === issue.action && i.reason === issue.reason,
    );
  }

  /** The lists of a server whose last fetch failed (connected but degraded), by kind. */
  degraded(server: string): ListFailure[] {
    const out: ListFailure[] = [];
    for (const kind of ALL_KINDS) {
      const f = this.failures.get(listKey(server, kind));
      if (!f) continue;
      const { failuresInARow: _, ...failure } = f;
      out.push(Object.freeze(failure));
    }
    return out;
  }

  /** Tools of the server's last tools/list that were repaired or left out. */
  issues(server: string): readonly ToolListIssue[] {
    return this.toolIssues.get(server) ?? [];
  }

  /** Why the server's last fetch of `kind` failed, while it has no list of that kind. */
  failure(server: string, kind: ListKind): Error | undefined {
    return this.lists.get(server)?.[kind]
      ? undefined
      : this.failures.get(listKey(server, kind))?.error;
  }

  /**
   * The names of the tools the server is known by now (published), for the name registry:
   * the model's names, so app-only tools (MCP Apps `visibility` without "model") have none.
   */
  toolNames(server: string): string[] {
    const out: string[] = [];
    for (const t of this.published.get(server)?.tools ?? [])
      if (modelVisible(t.ui)) out.push(t.tool);
    return out;
  }

  /** Whether the server's published tool list (app-only tools included) has `tool`. */
  listsTool(server: string, tool: string): boolean {
    return (this.published.get(server)?.tools ?? []).some((t) => t.tool === tool);
  }

  /** A list the server may still know and the cache lost (LRU): fetch it on demand. */
  async ensure<K extends keyof ServerLists>(
    server: string,
    client: McpClient | undefined,
    key: K,
  ): Promise<NonNullable<ServerLists[K]>> {
    const cached = this.lists.get(server)?.[key];
    if (cached) return cached as NonNullable<ServerLists[K]>;
    if (key === 'tools' && this.warm.has(server))
      return this.warm.get(server)! as NonNullable<ServerLists[K]>;
    if (!client) return [] as unknown as NonNullable<ServerLists[K]>;
    const kind: ListKind = key === 'templates' ? 'resources' : (key as ListKind);
    // The list is on its way (fetched after the connect, say): wait for it rather than ask twice.
    const running = this.fetching.get(listKey(server, kind));
    if (running) await running;
    const fetched = this.lists.get(server)?.[key];
    if (fetched) return fetched as NonNullable<ServerLists[K]>;
    // The last fetch failed: not asked again before its retry time (a host that reads the
    // lists of 30 servers must not ask a failing one 30 times).
    const failed = this.failures.get(listKey(server, kind));
    if (failed && this.deps.clock.now() < failed.retryAt)
      return [] as unknown as NonNullable<ServerLists[K]>;
    if (!this.prefetch.includes(kind)) {
      const read = this.followed.get(server) ?? new Set<ListKind>();
      read.add(kind);
      this.followed.set(server, read);
    }
    await this.refresh(server, client, [kind]);
    return (this.lists.get(server)?.[key] ?? []) as NonNullable<ServerLists[K]>;
  }

  /** `list_changed`: refetch after a quiet 300 ms, but never later than 2 s after the first. */
  changed(server: string, kind: ListKind, client: () => McpClient | undefined): void {
    this.lists.drop(server, kind === 'resources' ? undefined : kind);
    // A list nobody has read yet (not prefetched) is fetched on its first read.
    if (!this.followedBy(server).includes(kind)) return;
    const now = this.deps.clock.now();
    const entry = this.pending.get(server) ?? {
      kinds: new Set<ListKind>(),
      timer: undefined,
      firstAt: now,
    };
    entry.kinds.add(kind);
    if (entry.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
    const { listChangedDebounceMs: quiet, listChangedMaxDelayMs: ceiling } = this.deps.limits;
    const delay = Math.max(0, Math.min(quiet, entry.firstAt + ceiling - now));
    entry.timer = this.deps.clock.setTimeout(() => {
      this.pending.delete(server);
      const c = client();
      if (c?.isConnected) this.refresh(server, c, [...entry.kinds]).catch(() => {});
    }, delay);
    this.pending.set(server, entry);
  }

  private publish(server: string, kinds: readonly ListKind[]): void {
    const lists = this.lists.get(server) ?? {};
    const before = this.published.get(server) ?? { tools: [], prompts: [], resources: [] };
    const listed = { ...(before.listed ?? EMPTY_LISTING) };
    const next: Published = { ...before };
    const changes: Array<() => void> = [];
    if (kinds.includes('tools')) {
      listed.tools = lists.tools ?? [];
      next.tools = (lists.tools ?? []).map((t) => this.hostTool(server, t));
      const d = diffLists(before.tools, next.tools, (t) => t.name, hostToolsEqual);
      if (d.added.length + d.removed.length + d.changed.length > 0)
        changes.push(() => this.deps.events.emit('toolschange', { server, ...d }));
    }
    if (kinds.includes('prompts')) {
      listed.prompts = lists.prompts ?? [];
      next.prompts = (lists.prompts ?? []).map((p) => this.hostCommand(server, p));
      const d = diffLists(
        before.prompts,
        next.prompts,
        (p) => p.name,
        (a, b) => a.description === b.description && json(a.arguments) === json(b.arguments),
      );
      if (d.added.length + d.removed.length + d.changed.length > 0)
        changes.push(() => this.deps.events.emit('promptschange', { server, ...d }));
    }
    if (kinds.includes('resources')) {
      listed.resources = lists.resources ?? [];
      listed.templates = lists.templates ?? [];
      next.resources = (lists.resources ?? []).map((r) => ({ ...r, server }));
      const d = diffLists(
        before.resources,
        next.resources,
        (r) => r.uri,
        (a, b) => json(a) === json(b),
      );
      // A change of the templates alone is a change of the resources too (one list_changed).
      const templatesChanged = json(before.listed?.templates ?? []) !== json(listed.templates);
      if (d.added.length + d.removed.length + d.changed.length > 0 || templatesChanged)
        changes.push(() => this.deps.events.emit('resourceschange', { server, ...d }));
    }
    next.listed = Object.freeze(listed);
    // Published before the events: a listener reads the new lists (and the host names).
    this.published.set(server, next);
    for (const emit of changes) emit();
  }

  /** Publishes a warm (disk-cached) tool list for a server that has not started. */
  setWarm(server: string, tools: Tool[]): void {
    this.warm.set(server, tools);
    const before = this.published.get(server) ?? { tools: [], prompts: [], resources: [] };
    const next = tools.map((t) => this.hostTool(server, t));
    const d = diffLists(before.tools, next, (t) => t.name, hostToolsEqual);
    this.published.set(server, { ...before, tools: next });
    if (d.added.length + d.removed.length + d.changed.length > 0)
      this.deps.events.emit('toolschange', { server, ...d });
  }

  /** The server went away (closed, removed, failed): its items are removed. */
  forget(server: string, keepWarm = false): void {
    const entry = this.pending.get(server);
    if (entry?.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
    this.pending.delete(server);
    for (const kind of ALL_KINDS) this.failures.delete(listKey(server, kind));
    this.toolIssues.delete(server);
    this.collecting.delete(server);
    this.lists.drop(server);
    if (!keepWarm) this.warm.delete(server);
    const before = this.published.get(server);
    this.published.delete(server);
    if (!before) return;
    if (before.tools.length > 0 && !keepWarm)
      this.deps.events.emit('toolschange', {
        server,
        added: [],
        removed: before.tools,
        changed: [],
      });
    if (before.prompts.length > 0)
      this.deps.events.emit('promptschange', {
        server,
        added: [],
        removed: before.prompts,
        changed: [],
      });
    if (before.resources.length > 0)
      this.deps.events.emit('resourceschange', {
        server,
        added: [],
        removed: before.resources,
        changed: [],
      });
    if (keepWarm && before.tools.length > 0)
      this.published.set(server, { tools: before.tools, prompts: [], resources: [] });
  }

  /** The server's lists as it gave them, as last published; undefined before any fetch. */
  listing(server: string): ServerListing | undefined {
    return this.published.get(server)?.listed;
  }

  resources(server: string): Resource[] {
    return this.lists.get(server)?.resources ?? [];
  }

  templates(server: string): ResourceTemplate[] {
    return this.lists.get(server)?.templates ?? [];
  }

  clear(): void {
    for (const server of [...this.pending.keys()]) {
      const entry = this.pending.get(server);
      if (entry?.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
    }
    this.pending.clear();
    this.followed.clear();
    this.failures.clear();
    this.toolIssues.clear();
    this.collecting.clear();
    this.lists.clear();
    this.published.clear();
    this.warm.clear();
  }
}

function hostToolsEqual(a: HostTool, b: HostTool): boolean {
  return (
    a.description === b.description &&
    json(a.inputSchema) === json(b.inputSchema) &&
    json(a.outputSchema) === json(b.outputSchema) &&
    a.readOnly === b.readOnly &&
    a.destructive === b.destructive &&
    a.idempotent === b.idempotent &&
    a.openWorld === b.openWorld &&
    json(a._meta) === json(b._meta)
  );
}

/**
 * What gets a failed list back: a server whose answer broke the protocol schema is fixed by
 * its authors; a connection that broke needs a reconnect (the manager makes one on its
 * own); anything else is asked again on a read after `retryAt`.
 */
function nextStepFor(error: Error, retryAt: number): ListNextStep {
  if (InvalidResultError.isInstance(error)) return { kind: 'fix-server' };
  // An answer of the server's own (a JSON-RPC error) says nothing about the connection.
  if (typeof (error as { rpcCode?: unknown }).rpcCode !== 'number' && isConnectionLost(error))
    return { kind: 'reconnect' };
  return { kind: 'retry', at: retryAt };
}
