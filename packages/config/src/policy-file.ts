import { isRecord } from '@mcpkit/jsonrpc/errors';
import { type Diagnostic, jsonPath } from './diagnostics.js';
import { checkPolicyEntry } from './entry-rules.js';
import { parseJsoncText } from './jsonc.js';
import type { Policy } from './policy.js';
import type { PolicyEntry } from './schemas.js';
import { parseUrlRule } from './url-rules.js';

const LISTS = ['allowedMcpServers', 'deniedMcpServers'] as const;

// A key that is not ours but looks like a policy list is most likely a misspelt one: the
// rule it was meant to add must not silently vanish.
const LOOKS_LIKE_POLICY = /mcp|allow|den(y|ied)|server/i;

export interface PolicyFileResult {
  /** The policy, when the whole file could be used. */
  policy?: Policy;
  /**
   * Set when the file exists but cannot be used (unreadable, malformed, wrong shapes):
   * the reason, naming the file and the fix. Such a file fails closed.
   */
  unusable?: string;
  diagnostics: Diagnostic[];
}

/** The reason every server is blocked while `file` cannot be used. */
export function failClosedReason(file: string, problem: string): string {
  return `${file} cannot be used (${problem}), so no server may start: fix the file or remove it`;
}

/**
 * Reads a settings file's `allowedMcpServers` / `deniedMcpServers`. Any problem that could
 * change what is allowed (bad JSON, a list that is not an array, an entry with a wrong or
 * misspelt key, a repeated key, a misspelt list name) makes the whole file unusable:
 * the caller must then block every server rather than guess.
 */
export function parsePolicyFile(text: string, source: string): PolicyFileResult {
  const diagnostics: Diagnostic[] = [];
  const fail = (
    path: string,
    message: string,
    line?: number,
    column?: number,
  ): PolicyFileResult => {
    diagnostics.push({
      severity: 'error',
      source,
      path,
      message: `${message}; until this is fixed no server starts`,
      ...(line === undefined ? {} : { line, column: column ?? 1 }),
    });
    return {
      diagnostics,
      unusable: failClosedReason(source, path ? `${path}: ${message}` : message),
    };
  };
  const parsed = parseJsoncText(text, source);
  if (parsed.error) return fail('', parsed.error.message, parsed.error.line, parsed.error.column);
  const dup = parsed.duplicates[0];
  if (dup) return fail(dup.path, dup.message, dup.line, dup.column);
  if (!isRecord(parsed.value)) return fail('', 'expected a JSON object');
  const policy: Policy = { source };
  for (const key of Object.keys(parsed.value)) {
    // Read by the CLI, not policy: `registries` (the MCP Registries it searches),
    // `pypiIndexUrl` (the PyPI index uvx installs registry packages from) and
    // `identityProvider` (the enterprise IdP of entries with `oauth.xaa`).
    if (
      (LISTS as readonly string[]).includes(key) ||
      key === '$schema' ||
      key === 'registries' ||
      key === 'pypiIndexUrl' ||
      key === 'identityProvider'
    )
      continue;
    if (LOOKS_LIKE_POLICY.test(key))
      return fail(
        jsonPath([key]),
        `unknown key; did you mean ${LISTS.map((k) => `"${k}"`).join(' or ')}?`,
      );
    diagnostics.push({
      severity: 'warning',
      source,
      path: jsonPath([key]),
      message: 'unknown setting; ignored',
    });
  }
  for (const key of LISTS) {
    const list = parsed.value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return fail(key, 'expected an array of entries');
    const entries: PolicyEntry[] = [];
    for (let i = 0; i < list.length; i++) {
      const entry = checkPolicyEntry(list[i]);
      if (!entry)
        return fail(
          `${key}[${i}]`,
          'expected exactly one of { "serverName": "…" }, { "serverCommand": ["…"] } or { "serverUrl": "…" }',
        );
      if ('serverUrl' in entry) {
        const rule = parseUrlRule(entry.serverUrl);
        if ('error' in rule) return fail(`${key}[${i}].serverUrl`, rule.error);
      }
      entries.push(entry);
    }
    policy[key] = entries;
  }
  return { policy, diagnostics };
}
