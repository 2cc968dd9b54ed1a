import type { McpClient } from '@mcpkit/client';
import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from '@mcpkit/jsonrpc';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@mcpkit/protocol';
import type { HandlerContext, Registration } from '@mcpkit/server';

/** What the gateway last saw of one backend; kept while it reconnects. */
export interface BackendLists {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
}

/** `_meta` of the client's request, minus what belongs to the gateway's own hop. */
export function metaOf(ctx: HandlerContext): { _meta?: Record<string, unknown> } {
  if (!ctx.meta) return {};
  const { progressToken: _, ...rest } = ctx.meta;
  // 2026-07-28 request metadata (protocol version, capabilities) is per hop too.
  for (const key of Object.keys(rest))
    if (key.startsWith('io.modelcontextprotocol/')) delete rest[key];
  return Object.keys(rest).length > 0 ? { _meta: rest } : {};
}

/**
 * A backend's four lists, checked for depth (iteratively) before anything walks them: the
 * gateway's change keys and the served lists go through recursive walks, and a list too
 * deep for them fails this backend's refresh, never the sync of all.
 */
export async function fetchLists(
  client: McpClient,
  server: string,
  maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
): Promise<BackendLists> {
  const caps = client.serverCapabilities ?? {};
  const fresh = { fresh: true };
  const [tools, prompts, resources, templates] = await Promise.all([
    caps.tools ? client.listTools(fresh) : [],
    caps.prompts ? client.listPrompts(fresh) : [],
    caps.resources ? client.listResources(fresh) : [],
    caps.resources ? client.listResourceTemplates(fresh) : [],
  ]);
  const lists = { tools, prompts, resources, templates };
  assertJsonDepth(lists, maxJsonDepth, `server "${server}": its lists`);
  return lists;
}

export function apply(
  current: Map<string, { key: string; reg: Registration }>,
  wanted: Map<string, { key: string; add: () => Registration }>,
): void {
  for (const [name, entry] of current) {
    if (wanted.get(name)?.key === entry.key) continue;
    entry.reg.remove();
    current.delete(name);
  }
  for (const [name, entry] of wanted) {
    if (current.has(name)) continue;
    current.set(name, { key: entry.key, reg: entry.add() });
  }
}

/** The variable names of an RFC 6570 template (`{a}`, `{+path}`, `{?x,y}`). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]+)\}/g))
    for (const part of m[1]!.split(',')) names.push(part.replace(/[*]|:\d+$/g, '').trim());
  return names;
}
