import { isRecord } from '@mcpkit/jsonrpc/errors';
import { type Diagnostic, jsonPath } from './diagnostics.js';
import { checkEntry, knownFields } from './entry-rules.js';
import { lazySchemas } from './lazy-schemas.js';
import type { ServerConfig } from './schemas.js';
import { SERVER_NAME_PATTERN, SERVER_TYPES, type ServerType } from './server-types.js';

/** Names that mean something to JavaScript objects: never server names. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Validates one entry: picks its schema by `type`, reports every problem with its path. */
export function validateServerEntry(
  name: string,
  raw: unknown,
  source: string,
  at: ReadonlyArray<string | number>,
): { config?: ServerConfig; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const error = (path: ReadonlyArray<string | number>, message: string) =>
    diagnostics.push({ severity: 'error', source, path: jsonPath([...at, ...path]), message });
  if (!SERVER_NAME_PATTERN.test(name)) {
    error([], 'server names may contain only letters, digits, "-" and "_"');
    return { diagnostics };
  }
  if (RESERVED_NAMES.has(name)) {
    error([], `"${name}" is a reserved name and cannot be a server name; rename the server`);
    return { diagnostics };
  }
  if (!isRecord(raw)) {
    error([], 'expected an object');
    return { diagnostics };
  }
  let type = raw.type;
  if (type === undefined) {
    if (raw.url !== undefined) {
      error(['type'], 'a server with a "url" needs a "type": add "type": "http" (or "sse", "ws")');
      return { diagnostics };
    }
    type = 'stdio';
  }
  if (typeof type !== 'string' || !(SERVER_TYPES as readonly string[]).includes(type)) {
    error(
      ['type'],
      `unknown type ${JSON.stringify(type)}; expected one of ${SERVER_TYPES.join(', ')}`,
    );
    return { diagnostics };
  }
  const data = checkEntry(type as ServerType, raw);
  if (!data) {
    // Only an invalid entry loads zod: its schema says what is wrong, field by field.
    const schema = lazySchemas().serverSchemasByType[type as ServerType];
    const parsed = schema.safeParse(raw);
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      let at: unknown = raw;
      for (const key of issue.path)
        at =
          isRecord(at) || Array.isArray(at)
            ? (at as Record<PropertyKey, unknown>)[key as PropertyKey]
            : undefined;
      const message =
        at === undefined
          ? 'is required'
          : issue.path.at(-1) === 'url' && issue.code === 'invalid_type'
            ? 'expected a URL'
            : issue.message.replace(/^Invalid input: /, '');
      error(issue.path as Array<string | number>, message);
    }
    // The hand-written rules and the schemas agree (a test holds them to it); should they
    // ever not, the entry is still refused, never let through.
    if (diagnostics.length === 0) error([], `not a valid "${type}" server entry`);
    return { diagnostics };
  }
  const known = new Set(knownFields(type as ServerType));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      diagnostics.push({
        severity: 'warning',
        source,
        path: jsonPath([...at, key]),
        message: `unknown field for a "${type}" server; ignored`,
      });
    }
  }
  const config = { ...data, type } as Record<string, unknown>;
  // Maps are copied into ordinary objects, where a `__proto__` key silently vanishes:
  // keep the user's maps as null-prototype copies of what was written, every value checked.
  for (const field of ['env', 'headers']) {
    const map = raw[field];
    if (!isRecord(map) || config[field] === undefined) continue;
    const copy: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(map)) {
      if (typeof value !== 'string') {
        error([field, key], 'expected a string');
        return { diagnostics };
      }
      copy[key] = value;
    }
    config[field] = copy;
  }
  return { config: config as ServerConfig, diagnostics };
}
