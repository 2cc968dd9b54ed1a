import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import type { ReadResourceResult } from '@mcpkit/protocol';
import type { UiResource } from './apps.js';
import type { HostCommand } from './commands.js';
import { AppToolRefusedError, UnknownServerError } from './errors.js';
import type { HostTool, HostToolCallOptions } from './host-tool.js';
import type { McpManager } from './mcp-manager.js';
import type { HostToolResult } from './normalize-result.js';
import type { ManagerView } from './options.js';
import type { HostResource, HostResourceTemplate } from './resources.js';
import type { ManagerSnapshot } from './state.js';

/** Splits a scope's list into the parent's servers (by name) and inline entries it owns. */
export function scopeEntries(
  servers: ReadonlyArray<string | { name: string; config: ServerConfig }>,
  known: readonly string[],
): { shared: Set<string>; inline: ResolvedServer[] } {
  const shared = new Set<string>();
  const inline: ResolvedServer[] = [];
  for (const entry of servers) {
    if (typeof entry === 'string') {
      if (!known.includes(entry)) throw new UnknownServerError(entry, known);
      shared.add(entry);
      continue;
    }
    // Written by the host itself (not read from a file), so it is enabled; the transport
    // gate still applies to its config (`disabled: true` is refused).
    inline.push({
      name: entry.name,
      scope: 'dynamic',
      source: 'scope()',
      config: entry.config,
      status: 'enabled',
      reason: 'inline in a scope',
      policy: { allowed: true } as ResolvedServer['policy'],
      missingVariables: [],
    });
  }
  return { shared, inline };
}

/**
 * A child view of a manager for one agent: the parent's servers it names (shared
 * connections, never closed by the view) and inline servers it owns (closed with it).
 */
export class ManagerScope implements ManagerView {
  constructor(
    private readonly parent: McpManager,
    private readonly shared: ReadonlySet<string>,
    /** The view's own servers. */
    readonly own: McpManager,
  ) {}

  /** Connects the view's own (inline) servers. */
  async connectAll(options: { signal?: AbortSignal } = {}): Promise<ManagerSnapshot> {
    await this.own.connectAll(options);
    return this.snapshot();
  }

  private inView(server: string): boolean {
    return this.shared.has(server) || this.own.state(server) !== undefined;
  }

  private owner(server: string): McpManager {
    if (this.own.state(server) !== undefined) return this.own;
    if (this.shared.has(server)) return this.parent;
    throw new UnknownServerError(server, [
      ...this.shared,
      ...this.own.snapshot().servers.map((s) => s.name),
    ]);
  }

  snapshot(): ManagerSnapshot {
    const ownNames = new Set(this.own.snapshot().servers.map((s) => s.name));
    return Object.freeze({
      servers: Object.freeze([
        ...this.parent
          .snapshot()
          .servers.filter((s) => this.shared.has(s.name) && !ownNames.has(s.name)),
        ...this.own.snapshot().servers,
      ]),
    });
  }

  async tools(options?: { signal?: AbortSignal }): Promise<HostTool[]> {
    const ownNames = new Set(this.own.snapshot().servers.map((s) => s.name));
    const [mine, theirs] = await Promise.all([this.own.tools(options), this.parent.tools(options)]);
    return [...theirs.filter((t) => this.shared.has(t.server) && !ownNames.has(t.server)), ...mine];
  }

  resolveToolName(hostName: string): { server: string; tool: string } | undefined {
    const target = this.own.resolveToolName(hostName) ?? this.parent.resolveToolName(hostName);
    return target && this.inView(target.server) ? target : undefined;
  }

  async commands(options?: { signal?: AbortSignal }): Promise<HostCommand[]> {
    const [mine, theirs] = await Promise.all([
      this.own.commands(options),
      this.parent.commands(options),
    ]);
    return [
      ...theirs.filter((c) => this.shared.has(c.server) && this.own.state(c.server) === undefined),
      ...mine,
    ];
  }

  async listResources(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResource[]> {
    if (server !== undefined) return this.owner(server).listResources(server, options);
    const [mine, theirs] = await Promise.all([
      this.own.listResources(undefined, options),
      this.parent.listResources(undefined, options),
    ]);
    return [...theirs.filter((r) => this.shared.has(r.server)), ...mine];
  }

  async listResourceTemplates(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResourceTemplate[]> {
    if (server !== undefined) return this.owner(server).listResourceTemplates(server, options);
    const [mine, theirs] = await Promise.all([
      this.own.listResourceTemplates(undefined, options),
      this.parent.listResourceTemplates(undefined, options),
    ]);
    return [...theirs.filter((r) => this.shared.has(r.server)), ...mine];
  }

  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ReadResourceResult> {
    return this.owner(server).readResource(server, uri, options);
  }

  /**
   * MCP Apps: a tool call from a view of `server`, with the manager's gate (only `server`'s
   * own tools whose visibility has "app"). A server outside this view is unknown here, and a
   * refusal never names a server outside it.
   */
  async callToolFromApp(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    try {
      return await this.owner(server).callToolFromApp(server, tool, args, options);
    } catch (error) {
      if (
        error instanceof AppToolRefusedError &&
        error.targetServer !== undefined &&
        !this.inView(error.targetServer)
      )
        throw new AppToolRefusedError(server, tool, 'unknown-tool');
      throw error;
    }
  }

  /** MCP Apps: a view of a server in this scope (`McpManager.readUiResource`, same cache). */
  async readUiResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number; fresh?: boolean },
  ): Promise<UiResource> {
    return this.owner(server).readUiResource(server, uri, options);
  }

  /** Closes the view's own servers; the parent's stay connected. */
  async close(): Promise<void> {
    await this.own.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
