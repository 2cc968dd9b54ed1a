import type { ClientHandlers, UrlElicitation } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import type { McpInstrumentation, Transport } from '@mcpkit/jsonrpc';
import type { Implementation, ReadResourceResult } from '@mcpkit/protocol';
import type { ManagerAuthOptions } from './auth-wiring.js';
import type { CrashLoopPolicy, ReconnectPolicy } from './backoff.js';
import type { ListKind } from './catalog.js';
import type { Clock } from './clock.js';
import type { HostCommand } from './commands.js';
import type { ManagerHints } from './hints.js';
import type { HostTool } from './host-tool.js';
import type { LazyStartOptions } from './lazy-start.js';
import type { ManagerLimits } from './limits.js';
import type { HostResource, HostResourceTemplate } from './resources.js';
import type { ManagerSnapshot } from './state.js';
import type { TransportFactory } from './transport-factory.js';

/** The host's handlers for server-to-client requests, plus URL elicitation (-32042). */
export interface ManagerHandlers extends ClientHandlers {
  /**
   * A tool call answered -32042: the user must visit these URLs first. Resolve once they
   * did (the call is retried once); reject to fail the call.
   */
  urlElicitation?: (
    server: string,
    elicitations: UrlElicitation[],
    context: { signal?: AbortSignal },
  ) => Promise<void> | void;
}

export interface McpManagerOptions {
  /** `@mcpkit/config`'s resolved servers, or a function that resolves them. */
  servers?: readonly ResolvedServer[] | (() => Promise<readonly ResolvedServer[]>);
  clientInfo?: Implementation;
  /**
   * 2026-07-28 servers: declare the tasks extension (`io.modelcontextprotocol/tasks`) on
   * tool calls, so a long tool may answer with a task; `callTool` still resolves once, with
   * the final result (see `HostToolCallOptions.ontask` and `McpManager.resumeTask`).
   */
  tasks?: boolean;
  /**
   * MCP Apps: the host renders views, so every server is told so (client capabilities
   * `extensions["io.modelcontextprotocol/ui"]`, with the MIME types given; default
   * `["text/html;profile=mcp-app"]`). Servers that gate their Apps on it then list them.
   */
  apps?: boolean | { mimeTypes?: readonly string[] };
  /**
   * Given to every server's `McpClient` (`@mcpkit/otel` implements it); by default theirs
   * is the process-wide one of `setGlobalInstrumentation`, if any; `false`: none.
   */
  instrumentation?: McpInstrumentation | false;
  /** Shared by all servers, or chosen per server. */
  handlers?: ManagerHandlers | ((server: string) => ManagerHandlers | undefined);
  auth?: ManagerAuthOptions;
  limits?: Partial<ManagerLimits>;
  /** Replace the config → transport mapping. The enabled-status gate still runs first. */
  transportFactory?: TransportFactory;
  /** Host-registered in-process servers (`type: "sdk"` entries, by their `name`). */
  inProcess?: Record<string, () => Transport | Promise<Transport>>;
  /** `http` entries fall back to legacy HTTP+SSE on 400/404/405. Default true. */
  httpFallback?: boolean;
  /** Supervision policies (tests pass short ones). */
  reconnect?: Partial<ReconnectPolicy>;
  crashLoop?: Partial<CrashLoopPolicy>;
  /**
   * Lazy start: each server's last tool list is kept on disk; with a warm cache, `tools()`
   * answers without starting anything and a server starts on its first call.
   */
  lazyStart?: LazyStartOptions | false;
  /**
   * The next steps its messages give, in the host's words (a CLI's commands, an editor's
   * menu items). Default: the manager's own API (`reconnect()`, `MCP_TIMEOUT`, …).
   */
  hints?: ManagerHints;
  /**
   * The lists fetched as soon as a server connects, so that `tools()`, `commands()` and
   * `listResources()` answer without a round trip and their change events start at once.
   * Default all three. A list left out is fetched on its first read, and followed from then
   * on; until then a server's `list_changed` for it costs nothing. A host that never shows
   * prompts or resources saves a request per server and reconnect (two for resources).
   */
  lists?: readonly ListKind[];
  /** Where binary tool results are written (a private directory is made inside). Default the OS temp dir. */
  tempDir?: string;
  clock?: Clock;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  home?: string;
}

/** The manager's reading surface, shared by `scope()` views. */
export interface ManagerView {
  snapshot(): ManagerSnapshot;
  tools(options?: { signal?: AbortSignal }): Promise<HostTool[]>;
  resolveToolName(hostName: string): { server: string; tool: string } | undefined;
  commands(options?: { signal?: AbortSignal }): Promise<HostCommand[]>;
  listResources(server?: string, options?: { signal?: AbortSignal }): Promise<HostResource[]>;
  listResourceTemplates(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResourceTemplate[]>;
  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ReadResourceResult>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
