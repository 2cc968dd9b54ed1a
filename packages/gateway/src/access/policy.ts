import type { AuthInfo } from '@mcpkit/jsonrpc';
import type { AccessConfig, AccessRule } from '../compose/config.js';
import { globMatcher } from '../compose/view.js';

/** What a caller asks for: an endpoint's server's tool (or its prompts and resources). */
export interface AccessTarget {
  endpoint: string;
  server: string;
  kind: 'tool' | 'prompt' | 'resource';
  /** The backend's own name of the tool or prompt, the resource's URI. */
  name: string;
}

type Match = (value: string) => boolean;
const anyGlob = (globs: readonly string[] | undefined): Match | undefined => {
  if (globs === undefined) return undefined;
  const matchers = globs.map(globMatcher);
  return (value) => matchers.some((m) => m(value));
};

interface CompiledRule {
  deny: boolean;
  subject: Match | undefined;
  clientId: Match | undefined;
  group: Match | undefined;
  scopes: ReadonlySet<string> | undefined;
  endpoint: Match | undefined;
  server: Match | undefined;
  tool: Match | undefined;
}

/** The caller's groups: the group claim's strings (an array, or one string). */
function groupsOf(auth: AuthInfo | undefined, claim: string): string[] {
  const value = auth?.claims?.[claim];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The most decisions kept for one caller. */
const MAX_DECISIONS_PER_CALLER = 4096;

/** One caller's decisions: by endpoint, server and kind, then by name. */
class CallerDecisions {
  size = 0;
  private byEndpoint = new Map<
    string,
    Map<string, Record<AccessTarget['kind'], Map<string, boolean>>>
  >();

  names(target: AccessTarget): Map<string, boolean> {
    let servers = this.byEndpoint.get(target.endpoint);
    if (servers === undefined) {
      servers = new Map();
      this.byEndpoint.set(target.endpoint, servers);
    }
    let kinds = servers.get(target.server);
    if (kinds === undefined) {
      kinds = { tool: new Map(), prompt: new Map(), resource: new Map() };
      servers.set(target.server, kinds);
    }
    return kinds[target.kind];
  }

  clear(): void {
    this.byEndpoint = new Map();
    this.size = 0;
  }
}

/**
 * The per-client policy of a gateway config's `access.rules`: deny by default once any
 * rule is given, a matching deny wins over every allow. No rules: everything is allowed.
 */
export class Policy {
  readonly enabled: boolean;
  private readonly rules: CompiledRule[];
  private readonly groupClaim: string;
  /** Decisions by caller (collected with it), then by target; the anonymous caller's apart. */
  private readonly decisions = new WeakMap<AuthInfo, CallerDecisions>();
  private readonly anonymous = new CallerDecisions();

  constructor(config: AccessConfig | undefined) {
    const rules = config?.rules ?? [];
    this.enabled = rules.length > 0;
    this.groupClaim = config?.groupClaim ?? 'groups';
    this.rules = rules.map((r: AccessRule) => ({
      deny: r.effect === 'deny',
      subject: anyGlob(r.subject),
      clientId: anyGlob(r.clientId),
      group: anyGlob(r.group),
      scopes: r.scope === undefined ? undefined : new Set(r.scope),
      endpoint: anyGlob(r.endpoints),
      server: anyGlob(r.servers),
      tool: anyGlob(r.tools),
    }));
  }

  private matchesCaller(rule: CompiledRule, auth: AuthInfo | undefined): boolean {
    if (rule.subject && !(auth?.subject !== undefined && rule.subject(auth.subject))) return false;
    if (rule.clientId && !(auth?.clientId !== undefined && rule.clientId(auth.clientId)))
      return false;
    if (rule.group && !groupsOf(auth, this.groupClaim).some((g) => rule.group!(g))) return false;
    if (rule.scopes && !(auth?.scopes ?? []).some((s) => rule.scopes!.has(s))) return false;
    return true;
  }

  private covers(rule: CompiledRule, target: AccessTarget): boolean {
    if (rule.endpoint && !rule.endpoint(target.endpoint)) return false;
    if (rule.server && !rule.server(target.server)) return false;
    // A rule naming tools covers those tools only; one without covers the whole server.
    if (rule.tool) return target.kind === 'tool' && rule.tool(target.name);
    return true;
  }

  /**
   * Whether the caller may list and call the target. Decided once per caller and target:
   * an `AuthInfo` is frozen and the same object for every request with its token (a
   * verified JWT's, the static token's), and a new `Policy` comes with each reloaded
   * config, so a decision kept here is never stale.
   */
  allows(auth: AuthInfo | undefined, target: AccessTarget): boolean {
    if (!this.enabled) return true;
    // An introspected token's AuthInfo is made anew for each request: nothing to keep.
    if (auth?.kind === 'introspection') return this.decide(auth, target);
    let known = auth === undefined ? this.anonymous : this.decisions.get(auth);
    if (known === undefined) {
      known = new CallerDecisions();
      this.decisions.set(auth!, known);
    }
    // Looked up by the target's own strings (the served names, the config's endpoint and
    // server names: the same string objects call after call, their hashes kept by V8).
    const names = known.names(target);
    let allowed = names.get(target.name);
    if (allowed === undefined) {
      allowed = this.decide(auth, target);
      // A caller reading many resources by URI: the decisions start over past the bound.
      if (known.size >= MAX_DECISIONS_PER_CALLER) known.clear();
      known.names(target).set(target.name, allowed);
      known.size++;
    }
    return allowed;
  }

  private decide(auth: AuthInfo | undefined, target: AccessTarget): boolean {
    let allowed = false;
    for (const rule of this.rules) {
      if (!this.covers(rule, target) || !this.matchesCaller(rule, auth)) continue;
      if (rule.deny) return false;
      allowed = true;
    }
    return allowed;
  }

  /**
   * The scopes that would allow the target to this caller: those of allow rules covering
   * it whose other matchers the caller meets, when no deny rule covering it would match the
   * caller with that scope. Empty when no scope would help.
   */
  scopesAllowing(auth: AuthInfo | undefined, target: AccessTarget): string[] {
    const found = new Set<string>();
    for (const rule of this.rules) {
      if (rule.deny || !rule.scopes || !this.covers(rule, target)) continue;
      if (!this.matchesCaller({ ...rule, scopes: undefined }, auth)) continue;
      for (const scope of rule.scopes) {
        const stepped = { ...(auth ?? noAuth), scopes: [...(auth?.scopes ?? []), scope] };
        if (this.decide(stepped as AuthInfo, target)) found.add(scope);
      }
    }
    return [...found];
  }
}

const noAuth: AuthInfo = Object.freeze({
  kind: 'anonymous',
  subject: undefined,
  clientId: undefined,
  scopes: [],
  expiresAt: undefined,
  claims: {},
  token: '',
});
