import { authenticateToolDefinition } from '@mcpkit/manager';
import type { Tool } from '@mcpkit/protocol';
import type { HandlerContext, McpServer, ToolDefinition, ToolHandler } from '@mcpkit/server';
import { type Forward, metaOf } from './forward-request.js';
import type { RegistryEntry } from './registry-entries.js';
import { type CatalogTool, type ToolSearch, visibleToModel } from './search/search-tools.js';
import type { TaskRoutes } from './task-routes.js';

/** One served tool: its definition and handler, and the backend's own name for it. */
export interface ServedTool extends CatalogTool {
  server: string;
  /** The backend's name for it; undefined for the gateway's own `authenticate` tool. */
  original: string | undefined;
}

/** What a served tool's handler needs of its gateway. */
export interface ToolEntryHost {
  readonly server: McpServer;
  readonly taskRoutes: TaskRoutes;
  readonly forward: Forward;
  /** The annotations of a backend's own tool as it listed it (for a composed tool). */
  annotationsOf(server: string, tool: string): Tool['annotations'] | undefined;
  /** Runs the `authenticate` tool of a backend that needs a sign-in. */
  authenticate(server: string, ctx: HandlerContext): Promise<unknown>;
}

/**
 * MCP Apps: a tool an App view may call (`_meta.ui.visibility` absent, the extension's
 * default `["model", "app"]`, or naming `"app"`). A model-only tool keeps its served name only.
 */
export function visibleToApp(meta: Record<string, unknown> | undefined): boolean {
  const visibility = (meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes('app');
}

/** Search mode's two tools (the same key always: registered once, never changed). */
export function searchToolEntries(
  search: ToolSearch | undefined,
  server: McpServer,
): Map<string, RegistryEntry> {
  return new Map(
    (search?.tools() ?? []).map(({ name, definition, handler }) => [
      name,
      { key: 'search', add: () => server.registerTool(name, definition, handler) },
    ]),
  );
}

/**
 * A served tool: its registration key, definition and handler, and how to register it.
 * Without `tool`, the `authenticate` tool of a backend that needs a sign-in.
 */
export function toolEntry(
  host: ToolEntryHost,
  name: string,
  server: string,
  tool: Tool | undefined,
  toBackend?: (args: Record<string, unknown> | undefined) => unknown,
  composition?: unknown,
): ServedTool & RegistryEntry {
  const entry = (
    key: string,
    original: string | undefined,
    definition: ToolDefinition,
    handler: ToolHandler,
  ) => ({
    key,
    name,
    server,
    original,
    definition,
    handler,
    forModel: visibleToModel(definition._meta),
    add: () => host.server.registerTool(name, definition, handler),
  });
  if (!tool)
    return entry(
      `auth\u0000${server}`,
      undefined,
      // The manager's definition, without the backend's URL: the clients need not know it.
      authenticateToolDefinition(server) as ToolDefinition,
      (_args, ctx) => host.authenticate(server, ctx) as never,
    );
  const {
    name: original,
    inputSchema,
    outputSchema,
    title,
    description,
    annotations,
    icons,
    _meta,
  } = tool as Tool & { icons?: never; _meta?: Record<string, unknown> };
  const definition = {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    inputSchema: (inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    ...(outputSchema !== undefined
      ? { outputSchema: outputSchema as Record<string, unknown> }
      : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    ...(icons !== undefined ? { icons } : {}),
    ...(_meta !== undefined ? { _meta } : {}),
  };
  // Retried after a backend died under it only when the backend itself says it is harmless.
  // (Looked up only for a composed tool: the others are the backend's own, and a search
  // per tool would make a sync of many tools quadratic.)
  const own = composition === undefined ? annotations : host.annotationsOf(server, original);
  const retry = own?.readOnlyHint === true || own?.idempotentHint === true;
  return entry(
    `${server}\u0000${JSON.stringify(tool)}${composition === undefined ? '' : `\u0000${JSON.stringify(composition)}`}`,
    original,
    definition,
    (given, ctx) => {
      // Renamed arguments back to the backend's names, hidden values set (or a refusal).
      const args = (toBackend ? toBackend(given) : given) as typeof given;
      return host.forward(
        {
          kind: 'tool',
          server,
          name: original,
          method: 'tools/call',
          params: { name, arguments: given },
        },
        ctx,
        (client, options) => {
          // Only a 2026-07-28 backend answers with a task handle (the client awaits a 2025
          // one's tasks itself): no `then` for the others.
          const modern = client.era === 'modern';
          const called = client.callTool(
            // Without request _meta (the usual case) there is nothing to filter or copy.
            ctx.meta
              ? { name: original, arguments: args, ...metaOf(ctx) }
              : { name: original, arguments: args },
            host.taskRoutes.options(ctx, client, options),
          );
          return modern
            ? called.then((answer) => host.taskRoutes.note(server, ctx, answer))
            : called;
        },
        retry,
      ) as never;
    },
  );
}
