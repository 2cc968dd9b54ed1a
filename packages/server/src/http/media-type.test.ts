import { describe, expect, it } from 'vitest';
import { ACCEPTS_JSON, ACCEPTS_SSE, mediaTypeOf, streamAccepts } from './media-type.js';

// Each request's header value is a new string: the copies below are made at run time, so
// that the last-value shortcut compares contents, as it does on a real request.
const fresh = (text: string): string => [...text].join('');

describe('media-type last-value shortcut', () => {
  it('answers each Content-Type by its own value when values alternate', () => {
    const values = [
      ['application/json', 'application/json'],
      ['text/plain;charset=application/json', 'text/plain'],
      ['Application/JSON; charset=utf-8', 'application/json'],
      ['not a type', undefined],
      ['application/json', 'application/json'],
      ['not a type', undefined],
    ] as const;
    for (let round = 0; round < 3; round++)
      for (const [value, type] of values) expect(mediaTypeOf(fresh(value))).toBe(type);
  });

  it('answers each Accept by its own value when values alternate', () => {
    const both = ACCEPTS_JSON | ACCEPTS_SSE;
    const values = [
      ['application/json, text/event-stream', both],
      ['text/event-stream', ACCEPTS_SSE],
      ['application/json', ACCEPTS_JSON],
      ['application/json;q=0, text/event-stream', ACCEPTS_SSE],
      ['image/png', 0],
      ['*/*', both],
    ] as const;
    for (let round = 0; round < 3; round++)
      for (const [value, bits] of values) expect(streamAccepts(fresh(value))).toBe(bits);
  });
});
