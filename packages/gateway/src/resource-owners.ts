import { RpcError } from '@mcpkit/jsonrpc';
import type { Resource, ResourceTemplate } from '@mcpkit/protocol';
import { UriTemplate } from '@mcpkit/server';

/** A served resource: the backend that owns it and the backend's own URI. */
export interface OwnedResource {
  server: string;
  uri: string;
  served: string;
  resource: Resource;
}

/** A served template: its backend, the served form, and how much of a served URI to strip. */
export interface OwnedTemplate {
  server: string;
  served: string;
  template: UriTemplate;
  strip: number;
  definition: ResourceTemplate;
}

/** Which served URIs and templates belong to which backend (one each, never two). */
export interface ResourceAssignment {
  resources: OwnedResource[];
  templates: OwnedTemplate[];
  warnings: string[];
}

/**
 * Gives every served resource and template exactly one backend. A URI (or template) that
 * several backends offer is served as `<server>:<uri>` for each. A served URI that still
 * meets another — a backend offering `b:x` raw while `b:x` is the name given to backend
 * `b`'s `x` — goes to the backend whose name the gateway put in front of it (else the one
 * listed first); the other is not served, with a warning. A template that matches what
 * another backend's template stands for (`{+any}` beside `notes://item/{id}`) is served
 * under its own backend's prefix, with a warning; two that match each other both are.
 */
export function assignResources(
  servers: readonly string[],
  lists: (
    server: string,
  ) => { resources: readonly Resource[]; templates: readonly ResourceTemplate[] } | undefined,
): ResourceAssignment {
  const warnings: string[] = [];
  const owners = new Map<string, Set<string>>();
  const tOwners = new Map<string, Set<string>>();
  for (const server of servers) {
    for (const r of lists(server)?.resources ?? [])
      owners.set(r.uri, (owners.get(r.uri) ?? new Set()).add(server));
    for (const t of lists(server)?.templates ?? [])
      tOwners.set(t.uriTemplate, (tOwners.get(t.uriTemplate) ?? new Set()).add(server));
  }
  const byServed = new Map<string, OwnedResource & { given: boolean }>();
  for (const server of servers)
    for (const r of lists(server)?.resources ?? []) {
      const given = (owners.get(r.uri)?.size ?? 0) > 1;
      const served = given ? `${server}:${r.uri}` : r.uri;
      const entry = { server, uri: r.uri, served, resource: r, given };
      const other = byServed.get(served);
      if (!other) {
        byServed.set(served, entry);
        continue;
      }
      if (other.server === server) continue; // the same URI listed twice by one backend
      const [kept, dropped] = entry.given && !other.given ? [entry, other] : [other, entry];
      byServed.set(served, kept);
      warnings.push(
        `resource "${served}" is offered by server "${dropped.server}" (as "${dropped.uri}") and is served for server "${kept.server}" (its "${kept.uri}"); server "${dropped.server}"'s is not served`,
      );
    }

  // Templates: identical ones first, then ones that cover another backend's.
  const candidates = servers.flatMap((server) =>
    (lists(server)?.templates ?? []).map((t) => ({
      server,
      t,
      prefixed: (tOwners.get(t.uriTemplate)?.size ?? 0) > 1,
    })),
  );
  const formOf = (c: (typeof candidates)[number]) =>
    c.prefixed ? `${c.server}:${c.t.uriTemplate}` : c.t.uriTemplate;
  const compiled = candidates.map((c) => new UriTemplate(formOf(c)));
  const samples = candidates.map((c) => sampleOf(formOf(c)));
  const broad = new Set<number>();
  for (let i = 0; i < candidates.length; i++)
    for (let j = 0; j < candidates.length; j++) {
      if (i === j || candidates[i]!.server === candidates[j]!.server) continue;
      if (!compiled[i]!.match(samples[j]!)) continue;
      broad.add(i);
      warnings.push(
        `resource template "${candidates[i]!.t.uriTemplate}" of server "${candidates[i]!.server}" also matches the URIs of server "${candidates[j]!.server}"'s template "${candidates[j]!.t.uriTemplate}"; it is served as "${candidates[i]!.server}:${formOf(candidates[i]!)}"`,
      );
    }
  const templates: OwnedTemplate[] = [];
  const seen = new Set<string>();
  candidates.forEach((c, i) => {
    const base = formOf(c);
    const served = broad.has(i) ? `${c.server}:${base}` : base;
    if (seen.has(served)) return;
    seen.add(served);
    const strip = served.length - c.t.uriTemplate.length;
    templates.push({
      server: c.server,
      served,
      template: broad.has(i) ? new UriTemplate(served) : compiled[i]!,
      strip,
      definition: c.t,
    });
  });
  return { resources: [...byServed.values()], templates, warnings: [...new Set(warnings)] };
}

/** One URI a template stands for: each variable `x`, query variables left out. */
function sampleOf(template: string): string {
  return template.replace(/\{([+#?&]?)([^}]+)\}/g, (_m, op: string, list: string) =>
    op === '?' || op === '&'
      ? ''
      : list
          .split(',')
          .map(() => 'x')
          .join(','),
  );
}

/**
 * The owner of each served URI: a served resource's backend, else the one backend whose
 * served template matches. A URI that templates of several backends match is refused
 * (never guessed); nothing falls back to another backend or to the raw URI.
 */
export class ResourceOwners {
  private byServed = new Map<string, OwnedResource>();
  private byBackend = new Map<string, string>();
  private templates: readonly OwnedTemplate[] = [];

  set(assignment: ResourceAssignment): void {
    this.byServed = new Map(assignment.resources.map((r) => [r.served, r]));
    this.byBackend = new Map(
      assignment.resources.map((r) => [`${r.server}\u0000${r.uri}`, r.served]),
    );
    this.templates = assignment.templates;
  }

  /** The backend and its URI for a served URI; undefined when none serves it. */
  ownerOf(uri: string): { server: string; uri: string } | undefined {
    const direct = this.byServed.get(uri);
    if (direct) return { server: direct.server, uri: direct.uri };
    let found: OwnedTemplate | undefined;
    for (const t of this.templates) {
      if (!t.template.match(uri)) continue;
      if (found && found.server !== t.server)
        throw new RpcError(
          -32602,
          `mcpkit gateway: "${uri}" matches resource templates of server "${found.server}" and server "${t.server}"; refused rather than guessed`,
          { uri },
        );
      found ??= t;
    }
    return found ? { server: found.server, uri: uri.slice(found.strip) } : undefined;
  }

  /**
   * The served URI of a backend's own URI (its `notifications/resources/updated`), only when
   * that backend owns it; undefined for a URI of another backend's or of none.
   */
  servedOf(server: string, uri: string): string | undefined {
    const direct = this.byBackend.get(`${server}\u0000${uri}`);
    if (direct !== undefined) return direct;
    for (const t of this.templates) {
      if (t.server !== server) continue;
      const served = `${t.served.slice(0, t.strip)}${uri}`;
      if (!t.template.match(served)) continue;
      try {
        if (this.ownerOf(served)?.server === server) return served;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}
