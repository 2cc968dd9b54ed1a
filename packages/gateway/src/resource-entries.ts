import { RpcError } from '@mcpkit/jsonrpc';
import type { RegistryEntry } from './registry-entries.js';
import type { ResourceAssignment, ResourceOwners } from './resource-owners.js';
import type { EntryHost } from './served-entries-host.js';

/**
 * Resources keep the backend's URI; a URI two backends offer is served as
 * `<server>:<uri>` for each. Templates likewise. Each served URI and template has exactly
 * one backend (`assignResources`), and a read through a template goes to its backend only
 * when no other backend's template matches the URI. Also gives each served template's
 * backend (the access policy).
 */
export function resourceEntries(
  host: EntryHost,
  assignment: ResourceAssignment,
  owners: ResourceOwners,
): {
  resources: Map<string, RegistryEntry>;
  templates: Map<string, RegistryEntry>;
  templateOrigins: Map<string, string>;
} {
  const resources = new Map<string, RegistryEntry>();
  for (const { server, served, resource: r } of assignment.resources) {
    const { uri: original, ...definition } = r;
    resources.set(served, {
      key: `${server}\u0000${JSON.stringify(r)}`,
      add: () =>
        host.server.registerResource(
          served,
          definition as never,
          (_uri, ctx) =>
            host.forward(
              {
                kind: 'resource',
                server,
                name: original,
                method: 'resources/read',
                params: { uri: served },
              },
              ctx,
              (client, options) => client.readResource(original, options),
            ) as never,
        ),
    });
  }
  const templates = new Map<string, RegistryEntry>();
  const templateOrigins = new Map<string, string>();
  for (const { server, served, strip, definition: t } of assignment.templates) {
    templateOrigins.set(served, server);
    const { uriTemplate: _, ...plain } = t;
    const complete = host.completers(
      server,
      { type: 'ref/resource', uri: t.uriTemplate },
      templateVariables(t.uriTemplate),
    );
    const definition = complete ? { ...plain, complete } : plain;
    templates.set(served, {
      key: `${server}\u0000${served}\u0000${JSON.stringify(t)}`,
      add: () =>
        host.server.registerResourceTemplate(served, definition as never, (uri, _vars, ctx) => {
          // Another backend's template may match the same URI: it is this one's only alone.
          if (owners.ownerOf(uri)?.server !== server)
            throw new RpcError(-32602, `Resource not found: ${uri}`, { uri });
          return host.forward(
            {
              kind: 'resource',
              server,
              name: uri.slice(strip),
              method: 'resources/read',
              params: { uri },
            },
            ctx,
            (client, options) => client.readResource(uri.slice(strip), options),
          ) as never;
        }),
    });
  }
  return { resources, templates, templateOrigins };
}

/** The variable names of an RFC 6570 template (`{a}`, `{+path}`, `{?x,y}`). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]+)\}/g))
    for (const part of m[1]!.split(',')) names.push(part.replace(/[*]|:\d+$/g, '').trim());
  return names;
}
