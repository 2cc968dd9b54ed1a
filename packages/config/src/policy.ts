import { redactUrl } from './redact.js';
import type { PolicyEntry, ServerConfig } from './schemas.js';
import { commandOf, urlOf } from './signature.js';
import { parseUrlRule, ruleMatches, urlParts } from './url-rules.js';

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
  return `serverUrl "${redactUrl(entry.serverUrl)}"`;
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
  const parts = url === undefined ? undefined : urlParts(url);
  const rule = parseUrlRule(entry.serverUrl);
  return parts !== undefined && !('error' in rule) && ruleMatches(rule, parts);
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
  const url = urlOf(config);
  if (url !== undefined && urlParts(url)?.hasUserInfo) {
    return {
      allowed: false,
      reason: `its URL "${redactUrl(url)}" has user info (name@ or name:password@), which is refused: it can hide where the URL really goes; put credentials in "headers" instead`,
    };
  }
  const denied = policy?.deniedMcpServers ?? [];
  for (let i = 0; i < denied.length; i++) {
    const entry = denied[i]!;
    // A deny rule that cannot be understood could be meant for any remote server.
    const unusable =
      'serverUrl' in entry && url !== undefined && 'error' in parseUrlRule(entry.serverUrl);
    if (unusable || matches(entry, name, config)) {
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
    const what =
      kind === 'command' ? `its command ${JSON.stringify(argv)}` : `its URL "${redactUrl(url!)}"`;
    return {
      allowed: false,
      reason: `not in the allow list${from}: ${what} matches no ${kind === 'command' ? 'serverCommand' : 'serverUrl'} entry (a name entry is not enough when such entries exist)`,
    };
  }
  return { allowed: false, reason: `not in the allow list${from}: no entry matches "${name}"` };
}
