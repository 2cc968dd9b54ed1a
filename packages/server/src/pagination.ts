import { invalidParams } from './errors.js';

/** Items per page of every list result unless `McpServerOptions.pageSize` says otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

/** One page of `items` from an opaque cursor; a cursor this server did not issue is -32602. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const parsed =
      typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,32}$/.test(cursor)
        ? Number.parseInt(Buffer.from(cursor, 'base64url').toString('latin1').slice(2), 10)
        : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < 0 || parsed > items.length) {
      throw invalidParams(`Invalid cursor ${JSON.stringify(cursor)}; list again without a cursor`);
    }
    offset = parsed;
  }
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length
    ? { page, nextCursor: Buffer.from(`o:${end}`, 'latin1').toString('base64url') }
    : { page };
}
