import type { HandlerContext, VisibleKind } from '@mcpkit/server';
import type { AccessControl } from './access/access-control.js';
import type { ResourceOwners } from './resource-owners.js';
import type { ServedTool } from './tool-entries.js';

/** What the access policy is asked about: a gateway's served names and their backends. */
export interface ServedOrigins {
  /** The endpoint's name for the access policy. */
  endpoint: string;
  /** Every served tool (in search mode too). */
  served: ReadonlyMap<string, ServedTool>;
  /** Search mode is on: only its own two tools are listed. */
  searchMode: boolean;
  promptOrigins: ReadonlyMap<string, { server: string; original: string }>;
  owners: ResourceOwners;
  templateOrigins: ReadonlyMap<string, string>;
}

/** In search mode: whether the access policy lets this caller find a served tool. */
export function searchableBy(
  access: AccessControl,
  origins: ServedOrigins,
  name: string,
  ctx: HandlerContext,
): boolean {
  const tool = origins.served.get(name);
  return (
    tool !== undefined &&
    access.visible(ctx.authInfo, {
      endpoint: origins.endpoint,
      server: tool.server,
      kind: 'tool',
      name: tool.original ?? 'authenticate',
    })
  );
}

/** `McpServerOptions.visible`: what the access policy lets this caller list. */
export function visibleTo(
  access: AccessControl,
  origins: ServedOrigins,
  kind: VisibleKind,
  name: string,
  ctx: HandlerContext,
): boolean {
  const { endpoint } = origins;
  const auth = ctx.authInfo;
  switch (kind) {
    case 'tool': {
      const tool = origins.searchMode ? undefined : origins.served.get(name);
      // Search mode's own two tools: every call through them is checked as the tool's own.
      if (!tool) return origins.searchMode && access.health().state === 'ok';
      return access.visible(auth, {
        endpoint,
        server: tool.server,
        kind: 'tool',
        name: tool.original ?? 'authenticate',
      });
    }
    case 'prompt': {
      const origin = origins.promptOrigins.get(name);
      return (
        origin !== undefined &&
        access.visible(auth, {
          endpoint,
          server: origin.server,
          kind: 'prompt',
          name: origin.original,
        })
      );
    }
    case 'resource': {
      const owner = origins.owners.ownerOf(name);
      return (
        owner !== undefined &&
        access.visible(auth, {
          endpoint,
          server: owner.server,
          kind: 'resource',
          name: owner.uri,
        })
      );
    }
    case 'resourceTemplate': {
      const server = origins.templateOrigins.get(name);
      return (
        server !== undefined && access.visible(auth, { endpoint, server, kind: 'resource', name })
      );
    }
  }
}
