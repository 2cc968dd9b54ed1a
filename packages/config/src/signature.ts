import { createRequire } from 'node:module';
import type { ServerConfig } from './schemas.js';

let crypto: typeof import('node:crypto') | undefined;

/**
 * SHA-256 in hex, with node:crypto loaded on the first call: loading it costs about a fifth
 * of an empty Node process's start-up, and `mcpkit list` needs a digest only to compare a
 * stored approval whose other fields all match.
 */
export function sha256Hex(text: string): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * A proxy URL that carries its target in a `url` or `target` query parameter stands for
 * that target: `https://proxy.example/mcp?url=https%3A%2F%2Fapi.example%2Fmcp` →
 * `https://api.example/mcp`.
 */
export function unwrapProxyUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const key of ['url', 'target']) {
      const inner = parsed.searchParams.get(key);
      if (inner && /^https?:\/\//i.test(inner)) return unwrapProxyUrl(inner);
    }
  } catch {
    // Not a URL: compare as written.
  }
  return url;
}

function normalizeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    const text = parsed.toString();
    return text.endsWith('/') && parsed.pathname !== '/' ? text.slice(0, -1) : text;
  } catch {
    return url;
  }
}

/** The argv a stdio server runs, or undefined for other types. */
export function commandOf(config: ServerConfig): string[] | undefined {
  if (config.type === undefined || config.type === 'stdio') {
    const stdio = config as { command: string; args?: string[] };
    return [stdio.command, ...(stdio.args ?? [])];
  }
  return undefined;
}

/** The URL a remote server is reached at, or undefined for stdio and sdk servers. */
export function urlOf(config: ServerConfig): string | undefined {
  return 'url' in config && typeof config.url === 'string' ? config.url : undefined;
}

/**
 * What makes two entries "the same server": the argv for stdio, the (unwrapped,
 * normalized) URL for remote servers. In-process (`sdk`) servers have none.
 */
export function serverSignature(config: ServerConfig): string | undefined {
  const argv = commandOf(config);
  if (argv) return `stdio:${JSON.stringify(argv)}`;
  const url = urlOf(config);
  if (url) return `url:${normalizeUrl(unwrapProxyUrl(url))}`;
  return undefined;
}

/**
 * What a user approved when approving a project server: enough to tell, later, whether
 * the entry still is what they saw. Values that may be secrets (env and header values) are
 * kept only inside `digest`.
 */
export interface ApprovalRecord {
  /** The file the entry came from. */
  file: string;
  type: string;
  /** For stdio servers: the argv as written. */
  command?: string[];
  envNames?: string[];
  /** For remote servers: the URL as written. */
  url?: string;
  headerNames?: string[];
  headersHelper?: string;
  /** SHA-256 of the whole entry as written (values included), canonical key order. */
  digest: string;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      Object.defineProperty(out, key, {
        value: canonical((value as Record<string, unknown>)[key]),
        enumerable: true,
      });
    return out;
  }
  return value;
}

const namesOf = (map: unknown) =>
  map && typeof map === 'object' ? Object.keys(map).sort() : undefined;

/**
 * The approval record of an entry as written (before `${VAR}` expansion) in `file`. Its
 * `digest` is an enumerable getter over the entry's canonical text taken now: computed on
 * first read (a comparison, a copy, `JSON.stringify`), the same value as if computed here.
 */
export function approvalRecord(config: ServerConfig, file: string): ApprovalRecord {
  const raw = config as Record<string, unknown>;
  const argv = commandOf(config);
  const url = urlOf(config);
  const envNames = namesOf(raw.env);
  const headerNames = namesOf(raw.headers);
  const text = JSON.stringify(canonical({ type: 'stdio', ...raw }));
  let digest: string | undefined;
  const record = {
    file,
    type: config.type ?? 'stdio',
    ...(argv ? { command: argv } : {}),
    ...(envNames ? { envNames } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(headerNames ? { headerNames } : {}),
    ...(typeof raw.headersHelper === 'string' ? { headersHelper: raw.headersHelper } : {}),
  } as ApprovalRecord;
  Object.defineProperty(record, 'digest', {
    enumerable: true,
    get: () => {
      digest ??= sha256Hex(text);
      return digest;
    },
  });
  return record;
}

const FIELDS: Array<[keyof ApprovalRecord, string]> = [
  ['file', 'file'],
  ['type', 'type'],
  ['command', 'command'],
  ['envNames', 'env names'],
  ['url', 'url'],
  ['headerNames', 'header names'],
  ['headersHelper', 'headersHelper'],
];

/**
 * What changed between an approval as stored (any JSON: the state file is read from
 * disk) and an entry now: `[]` when it is the same entry, else the changed parts, e.g.
 * `['command']` or `['other settings (such as env or header values)']`.
 */
export function approvalChanges(stored: unknown, current: ApprovalRecord): string[] {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return ['everything'];
  const s = stored as Record<string, unknown>;
  const changed = FIELDS.filter(
    ([key]) => JSON.stringify(s[key] ?? null) !== JSON.stringify(current[key] ?? null),
  ).map(([, label]) => label);
  if (changed.length === 0 && s.digest !== current.digest)
    changed.push('other settings (such as env or header values)');
  return changed;
}
