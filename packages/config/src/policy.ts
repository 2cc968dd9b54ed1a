import type { PolicyEntry, ServerConfig } from './schemas.js';
import { commandOf, urlOf } from './signature.js';

export interface Policy {
  /** Absent: everything is allowed. Empty: nothing is. */
  allowedMcpServers?: PolicyEntry[];
  deniedMcpServers?: PolicyEntry[];
  /** Where the lists came from, for explanations. */
  source?: string;
  /**
   * Why no server may run: a policy or managed file exists but cannot be used. When this
   * has an entry, every server is blocked with it as the reason (fail closed).
   */
  failClosed?: string[];
}

export interface PolicyDecision {
  allowed: boolean;
  /** One sentence a person can read: why this server is allowed or blocked. */
  reason: string;
}

function describeEntry(entry: PolicyEntry): string {
  if ('serverName' in entry) return `serverName "${entry.serverName}"`;
  if ('serverCommand' in entry) return `serverCommand ${JSON.stringify(entry.serverCommand)}`;
  return `serverUrl "${entry.serverUrl}"`;
}

function globToRegExp(glob: string, flags = ''): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${body}$`, flags);
}

/**
 * `*` matches any run of characters; the scheme and host compare case-insensitively;
 * a pattern without a path matches every path on that host.
 */
export function urlMatches(pattern: string, url: string): boolean {
  const split = (u: string) => {
    const m = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)([^?#]*)?(.*)$/i.exec(u);
    return { origin: `${m?.[1] ?? ''}${m?.[2] ?? ''}`, path: m?.[3] ?? '', rest: m?.[4] ?? '' };
  };
  const p = split(pattern);
  const u = split(url);
  if (!globToRegExp(p.origin, 'i').test(u.origin)) return false;
  if (p.path === '' || p.path === '/') return p.rest === '' || globToRegExp(p.rest).test(u.rest);
  return globToRegExp(p.path + p.rest).test(u.path + u.rest);
}

function matches(entry: PolicyEntry, name: string, config: ServerConfig): boolean {
  if ('serverName' in entry) return entry.serverName === name;
  if ('serverCommand' in entry) {
    const argv = commandOf(config);
    return (
      !!argv &&
      argv.length === entry.serverCommand.length &&
      argv.every((a, i) => a === entry.serverCommand[i])
    );
  }
  const url = urlOf(config);
  return url !== undefined && urlMatches(entry.serverUrl, url);
}

/**
 * Decides whether a server may run. Deny always wins. An absent allow list allows all;
 * an empty one allows nothing. When the allow list has command (or URL) entries, a stdio
 * (or remote) server must match one of them: its name alone is not enough.
 * `config` should be expanded already, so patterns match what would really run.
 */
export function evaluatePolicy(
  name: string,
  config: ServerConfig,
  policy: Policy | undefined,
): PolicyDecision {
  const from = policy?.source ? ` in ${policy.source}` : '';
  if (policy?.failClosed?.length) return { allowed: false, reason: policy.failClosed.join('; ') };
  const denied = policy?.deniedMcpServers ?? [];
  for (let i = 0; i < denied.length; i++) {
    if (matches(denied[i]!, name, config)) {
      return {
        allowed: false,
        reason: `denied by deniedMcpServers[${i}] (${describeEntry(denied[i]!)})${from}`,
      };
    }
  }
  const allowed = policy?.allowedMcpServers;
  if (allowed === undefined)
    return { allowed: true, reason: 'no allow list: every server not denied is allowed' };
  if (allowed.length === 0)
    return { allowed: false, reason: `the allow list${from} is empty: no server is allowed` };
  const argv = commandOf(config);
  const url = urlOf(config);
  const hasCommands = allowed.some((e) => 'serverCommand' in e);
  const hasUrls = allowed.some((e) => 'serverUrl' in e);
  const kind = argv ? 'command' : url ? 'url' : 'name';
  const mustMatch = (kind === 'command' && hasCommands) || (kind === 'url' && hasUrls);
  for (let i = 0; i < allowed.length; i++) {
    const entry = allowed[i]!;
    if (mustMatch && 'serverName' in entry) continue;
    if (matches(entry, name, config)) {
      return {
        allowed: true,
        reason: `allowed by allowedMcpServers[${i}] (${describeEntry(entry)})${from}`,
      };
    }
  }
  if (mustMatch) {
    const what = kind === 'command' ? `its command ${JSON.stringify(argv)}` : `its URL "${url}"`;
    return {
      allowed: false,
      reason: `not in the allow list${from}: ${what} matches no ${kind === 'command' ? 'serverCommand' : 'serverUrl'} entry (a name entry is not enough when such entries exist)`,
    };
  }
  return { allowed: false, reason: `not in the allow list${from}: no entry matches "${name}"` };
}
