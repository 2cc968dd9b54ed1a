import { isRecord as isObject } from '@mcpkit/jsonrpc/errors';
import type { PolicyEntry } from './schemas.js';
import type { ServerType } from './server-types.js';

/**
 * The rules of a server entry written out by hand, so that a valid configuration is
 * checked without loading zod (about 90 ms of module loading here, most of what `mcpkit
 * list` would spend). They accept exactly what the zod schemas in `schemas.ts` accept and
 * give the same data (unknown keys dropped, arrays and maps copied): `entry-rules.test.ts`
 * checks both on generated entries. Only an invalid entry loads zod, for its messages.
 */

type Rule = (value: unknown) => boolean;

const isString: Rule = (v) => typeof v === 'string';
const nonEmpty: Rule = (v) => typeof v === 'string' && v.length >= 1;
const isBoolean: Rule = (v) => typeof v === 'boolean';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const strings: Rule = (v) => Array.isArray(v) && v.every(isString);
const stringMap: Rule = (v) =>
  isPlainObject(v) && Object.values(v as Record<string, unknown>).every(isString);
const httpUrl: Rule = (v) => typeof v === 'string' && (/^https?:\/\//i.test(v) || /\$\{/.test(v));
const wsUrl: Rule = (v) => typeof v === 'string' && (/^wss?:\/\//i.test(v) || /\$\{/.test(v));
const timeout: Rule = (v) => isInt(v) && v > 0;
const port: Rule = (v) => isInt(v) && v >= 1 && v <= 65535;
const httpsUrl: Rule = (v) => typeof v === 'string' && /^https:\/\//i.test(v);

function isPlainObject(v: unknown): boolean {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Field → rule; a `!` after the name marks a required field. */
type Shape = Record<string, Rule>;

const oauthShape: Shape = {
  clientId: nonEmpty,
  callbackPort: port,
  authServerMetadataUrl: httpsUrl,
  scopes: strings,
  xaa: isBoolean,
};
const oauth: Rule = (v) => isObject(v) && fits(oauthShape, v);

const common: Shape = { timeout, disabled: isBoolean };
const remote: Shape = {
  'url!': httpUrl,
  headers: stringMap,
  headersHelper: nonEmpty,
  oauth,
  ...common,
};

const shapes: Record<ServerType, Shape> = {
  stdio: {
    type: (v) => v === 'stdio',
    'command!': nonEmpty,
    args: strings,
    env: stringMap,
    ...common,
  },
  sse: { 'type!': (v) => v === 'sse', ...remote },
  http: { 'type!': (v) => v === 'http' || v === 'streamable-http', ...remote },
  'streamable-http': { 'type!': (v) => v === 'http' || v === 'streamable-http', ...remote },
  ws: {
    'type!': (v) => v === 'ws',
    'url!': wsUrl,
    headers: stringMap,
    headersHelper: nonEmpty,
    ...common,
  },
  'sse-ide': {
    'type!': (v) => v === 'sse-ide',
    'url!': httpUrl,
    'ideName!': nonEmpty,
    ideRunningInWindows: isBoolean,
    ...common,
  },
  'ws-ide': {
    'type!': (v) => v === 'ws-ide',
    'url!': wsUrl,
    'ideName!': nonEmpty,
    authToken: isString,
    ideRunningInWindows: isBoolean,
    ...common,
  },
  sdk: { 'type!': (v) => v === 'sdk', 'name!': nonEmpty, ...common },
  proxy: { 'type!': (v) => v === 'proxy', 'url!': httpUrl, 'id!': nonEmpty, ...common },
};

function fits(shape: Shape, value: Record<string, unknown>): boolean {
  for (const [field, rule] of Object.entries(shape)) {
    const required = field.endsWith('!');
    const v = value[required ? field.slice(0, -1) : field];
    if (v === undefined ? required : !rule(v)) return false;
  }
  return true;
}

/** A copy holding only the shape's fields, as zod gives it (nested objects likewise). */
function pick(shape: Shape, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(shape)) {
    const key = field.endsWith('!') ? field.slice(0, -1) : field;
    const v = value[key];
    if (v === undefined) continue;
    if (key === 'oauth') out[key] = pick(oauthShape, v as Record<string, unknown>);
    else if (Array.isArray(v)) out[key] = [...v];
    else if (isObject(v)) out[key] = { ...v };
    else out[key] = v;
  }
  return out;
}

/** The entry's data when it is valid for its type, else undefined. */
export function checkEntry(
  type: ServerType,
  raw: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const shape = shapes[type];
  return fits(shape, raw) ? pick(shape, raw) : undefined;
}

/** The fields an entry of this type knows (others get an "unknown field" warning). */
export function knownFields(type: ServerType): string[] {
  return Object.keys(shapes[type]).map((f) => (f.endsWith('!') ? f.slice(0, -1) : f));
}

/** Exactly one of `serverName`, `serverCommand` (non-empty) or `serverUrl`, nothing else. */
export function checkPolicyEntry(raw: unknown): PolicyEntry | undefined {
  if (!isObject(raw)) return undefined;
  const keys = Object.keys(raw);
  if (keys.length !== 1) return undefined;
  const [key] = keys;
  const v = raw[key!];
  if (key === 'serverName' && nonEmpty(v)) return { serverName: v as string };
  if (key === 'serverUrl' && nonEmpty(v)) return { serverUrl: v as string };
  if (key === 'serverCommand' && Array.isArray(v) && v.length >= 1 && v.every(isString))
    return { serverCommand: [...v] };
  return undefined;
}
