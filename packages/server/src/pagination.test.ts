import { describe, expect, it } from 'vitest';
import { paginate } from './pagination.js';

describe('paginate', () => {
  const items = Array.from({ length: 5 }, (_, i) => i);

  it('walks every page with the cursors it hands out', () => {
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const { page, nextCursor } = paginate(items, cursor, 2);
      pages.push(page);
      cursor = nextCursor;
    } while (cursor);
    expect(pages).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('refuses a cursor it did not issue with -32602', () => {
    for (const bad of ['nope', 123, Buffer.from('o:99').toString('base64url'), '']) {
      expect(() => paginate(items, bad, 2)).toThrow(expect.objectContaining({ rpcCode: -32602 }));
    }
  });
});
