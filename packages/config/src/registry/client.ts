import { isRecord } from '@mcpkit/jsonrpc/errors';
import { RegistryError, RegistryErrorCode } from './errors.js';
import { parseRegistryEntry, type RegistryEntry } from './server-json.js';

/** The official MCP Registry. */
export const OFFICIAL_REGISTRY = 'https://registry.modelcontextprotocol.io';
/** The largest answer read from a registry (a page of 100 entries is well under 1 MiB). */
export const MAX_REGISTRY_BYTES = 4 * 1024 * 1024;
/** Same-origin redirects followed at most. */
export const MAX_REGISTRY_REDIRECTS = 3;
/** Pages read at most for one search. */
export const MAX_SEARCH_PAGES = 10;

export interface RegistryClientOptions {
  /** The whole request (headers and body) must finish within this; default 15000. */
  timeoutMs?: number;
  /** Default `MAX_REGISTRY_BYTES`. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Default the global `fetch` (Node's). */
  fetch?: typeof fetch;
}

export interface SearchOptions {
  /** Entries wanted at most (1 … 100); default 20. */
  limit?: number;
}

export interface SearchResult {
  entries: RegistryEntry[];
  /** More entries matched than were read. */
  more: boolean;
}

/** A registry base URL, checked and without a trailing `/` (an http(s) URL; a path is kept). */
export function registryBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RegistryError(
      RegistryErrorCode.InvalidEntry,
      `registry ${JSON.stringify(url)} is not a URL`,
      {
        registry: url,
      },
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new RegistryError(
      RegistryErrorCode.InvalidEntry,
      `registry ${url} is not an http(s) URL`,
      {
        registry: url,
      },
    );
  if (parsed.username || parsed.password || parsed.search || parsed.hash)
    throw new RegistryError(
      RegistryErrorCode.InvalidEntry,
      `registry ${parsed.origin}${parsed.pathname} must be a plain base URL (no credentials, query or fragment)`,
      { registry: `${parsed.origin}${parsed.pathname}` },
    );
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/**
 * A client of one MCP Registry (the API at `/v0.1`): every answer read with a byte bound
 * and a timeout, redirects followed only within the registry's origin (and at most
 * `MAX_REGISTRY_REDIRECTS`), and checked for the shape mcpkit relies on.
 */
export class RegistryClient {
  readonly base: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly signal: AbortSignal | undefined;
  private readonly fetch: typeof fetch;

  constructor(base: string, options: RegistryClientOptions = {}) {
    this.base = registryBase(base);
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxBytes = options.maxBytes ?? MAX_REGISTRY_BYTES;
    this.signal = options.signal;
    this.fetch = options.fetch ?? fetch;
  }

  /** `GET /v0.1/servers?search=…&version=latest`, following `metadata.nextCursor`. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const limit = Math.min(Math.max(options.limit ?? 20, 1), 100);
    const entries: RegistryEntry[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_SEARCH_PAGES; page++) {
      const params = new URLSearchParams({
        version: 'latest',
        limit: String(limit - entries.length),
      });
      if (query) params.set('search', query);
      if (cursor !== undefined) params.set('cursor', cursor);
      const url = `${this.base}/v0.1/servers?${params}`;
      const body = await this.getJson(url);
      if (!isRecord(body) || !Array.isArray(body.servers))
        throw this.malformed(url, 'an answer without a "servers" array');
      for (const item of body.servers) {
        if (entries.length >= limit) return { entries, more: true };
        entries.push(parseRegistryEntry(item, this.base, url));
      }
      const next = isRecord(body.metadata) ? body.metadata.nextCursor : undefined;
      if (typeof next !== 'string' || next === '') return { entries, more: false };
      if (entries.length >= limit) return { entries, more: true };
      if (cursors.has(next))
        throw this.malformed(url, `the cursor ${JSON.stringify(next)} a second time`);
      cursors.add(next);
      cursor = next;
    }
    return { entries, more: true };
  }

  /** `GET /v0.1/servers/{name}/versions/{version}`; `undefined` when the registry answers 404. */
  async get(name: string, version = 'latest'): Promise<RegistryEntry | undefined> {
    const url = `${this.base}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
    const body = await this.getJson(url, true);
    if (body === NOT_FOUND) return undefined;
    const entry = parseRegistryEntry(body, this.base, url);
    if (entry.server.name !== name)
      throw this.malformed(url, `server "${entry.server.name}" when asked for "${name}"`);
    if (version !== 'latest' && entry.server.version !== version)
      throw this.malformed(url, `version ${entry.server.version} when asked for ${version}`);
    return entry;
  }

  private malformed(url: string, what: string): RegistryError {
    return new RegistryError(
      RegistryErrorCode.Malformed,
      `registry ${this.base} answered ${url} with ${what}`,
      { registry: this.base, url },
    );
  }

  private async getJson(url: string, notFoundOk = false): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    const origin = new URL(this.base).origin;
    const facts = { registry: this.base, url };
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        const response = await this.fetch(current, {
          redirect: 'manual',
          signal,
          headers: { accept: 'application/json' },
        });
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel().catch(() => {});
          const location = response.headers.get('location');
          const target = location ? new URL(location, current) : undefined;
          if (!target || target.origin !== origin)
            throw new RegistryError(
              RegistryErrorCode.Redirect,
              `registry ${this.base} redirected ${current} to ${target ? target.href : 'nowhere'}: another origin; not followed`,
              { ...facts, status: response.status, location: target?.href },
            );
          if (hop >= MAX_REGISTRY_REDIRECTS)
            throw new RegistryError(
              RegistryErrorCode.Redirect,
              `registry ${this.base} redirected more than ${MAX_REGISTRY_REDIRECTS} times (last to ${target.href})`,
              { ...facts, status: response.status, location: target.href },
            );
          current = target.href;
          continue;
        }
        if (response.status === 404 && notFoundOk) {
          await response.body?.cancel().catch(() => {});
          return NOT_FOUND;
        }
        const text = await readBounded(response, this.maxBytes, this.base, current);
        if (!response.ok)
          throw new RegistryError(
            RegistryErrorCode.Http,
            `registry ${this.base} answered ${current} with HTTP ${response.status}${excerpt(text)}`,
            { ...facts, status: response.status },
          );
        try {
          return JSON.parse(text);
        } catch (error) {
          throw new RegistryError(
            RegistryErrorCode.Malformed,
            `registry ${this.base} answered ${current} with something that is not JSON (${(error as Error).message})`,
            facts,
            { cause: error },
          );
        }
      }
    } catch (error) {
      if (RegistryError.isInstance(error)) throw error;
      if (timeout.aborted)
        throw new RegistryError(
          RegistryErrorCode.Timeout,
          `registry ${this.base} did not answer ${url} within ${this.timeoutMs} ms`,
          { ...facts, timeoutMs: this.timeoutMs },
          { cause: error },
        );
      if (this.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new RegistryError(
        RegistryErrorCode.Unreachable,
        `registry ${this.base} could not be reached at ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
        facts,
        { cause: error },
      );
    }
  }
}

const NOT_FOUND = Symbol('not found');

function excerpt(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return t ? `: ${t}` : '';
}

/** The body as text, refused once it passes `max` bytes (the rest is not read). */
async function readBounded(
  response: Response,
  max: number,
  registry: string,
  url: string,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  const tooLarge = () =>
    new RegistryError(
      RegistryErrorCode.TooLarge,
      `registry ${registry} answered ${url} with more than ${max} bytes; not read`,
      { registry, url, limitBytes: max },
    );
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
