import { describe, expect, it } from 'vitest';
import { eraOf, LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS } from './versions.js';

describe('eraOf: the one era rule', () => {
  it('gives each known revision its era', () => {
    expect(PROTOCOL_VERSIONS.map((v) => [v, eraOf(v)])).toEqual([
      ['2024-11-05', 'legacy'],
      ['2025-03-26', 'legacy'],
      ['2025-06-18', 'legacy'],
      ['2025-11-25', 'legacy'],
      ['2026-07-28', 'modern'],
    ]);
  });

  it('counts a revision dated after the newest known as modern (it used to say legacy)', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2026-07-28');
    expect(eraOf('2026-07-29')).toBe('modern');
    expect(eraOf('2027-03-01')).toBe('modern');
  });

  it('is undefined for an unknown older date and for what is not a revision', () => {
    expect(eraOf('2025-01-01')).toBeUndefined();
    expect(eraOf('9')).toBeUndefined();
    expect(eraOf('2027-03-01; drop')).toBeUndefined();
    expect(eraOf('')).toBeUndefined();
  });
});
