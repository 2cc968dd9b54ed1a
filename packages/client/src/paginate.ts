import type { Connection } from './connection.js';
import { LimitExceededError, RepeatedCursorError } from './errors.js';
import { type CallOptions, clientDefaults } from './options.js';
import type { RequestPipeline } from './request-pipeline.js';
import type { SchemaName } from './result-checks.js';

export type Paged<K extends string, T> = { [key in K]: T[] } & {
  nextCursor?: string | undefined;
  ttlMs?: number | undefined;
};

/**
 * Every page of a list request (`tools/list`, …), following `nextCursor` up to `maxPages`; a cursor
 * seen twice ends it with an error rather than an endless loop. The list's `ttlMs` is
 * that of its stalest page.
 */
export async function listAll<K extends string, T>(
  conn: Connection,
  pipeline: RequestPipeline,
  method: string,
  key: K,
  schemaName: SchemaName,
  fast: ((raw: unknown) => Paged<K, T> | undefined) | undefined,
  options?: CallOptions,
): Promise<{ items: T[]; ttlMs: number | undefined }> {
  const maxPages = conn.options.maxPages ?? clientDefaults.maxPages;
  const items: T[] = [];
  const seen = new Set<string>();
  let ttlMs: number | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = (await pipeline.requestChecked(
      method,
      cursor === undefined ? undefined : { cursor },
      schemaName,
      fast,
      options,
    )) as Paged<K, T>;
    items.push(...result[key]);
    if (typeof result.ttlMs === 'number')
      ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
    else if (page > 0) ttlMs = 0;
    cursor = result.nextCursor;
    if (cursor === undefined) return { items, ttlMs };
    if (seen.has(cursor)) {
      throw new RepeatedCursorError(
        `${conn.label}: "${method}" returned cursor ${JSON.stringify(cursor)} twice; stopping to avoid an endless loop (a server bug: report it to the server's authors)`,
        method,
        cursor,
      );
    }
    seen.add(cursor);
  }
  throw new LimitExceededError(
    `${conn.label}: "${method}" has more than ${maxPages} pages; raise maxPages to fetch them all`,
    'maxPages',
    maxPages,
  );
}
