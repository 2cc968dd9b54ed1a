import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  maxEventIdLength,
  maxReplicaIdBytes,
  maxRequestIdBytes,
  ownerTag,
  parseEventId,
  replicaTagPart,
} from './event-id.js';

const fits = (text: string, max: number) =>
  Buffer.byteLength(text) <= max && Buffer.from(text).toString() === text;

describe('event ids that carry a stream owner', () => {
  it('round trip: every replica id and request id within the bounds comes back as it went', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64, unit: 'binary' }),
        fc.oneof(
          fc.string({ maxLength: 96, unit: 'binary' }),
          fc.maxSafeInteger(),
          fc.maxSafeNat().map((n) => -n),
        ),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.nat(),
        (replica, requestId, stream, seq) => {
          const part = replicaTagPart(replica);
          if (!fits(replica, maxReplicaIdBytes)) {
            expect(part).toBeUndefined();
            return;
          }
          const tag = ownerTag(part!, requestId);
          if (typeof requestId === 'string' && !fits(requestId, maxRequestIdBytes)) {
            expect(tag).toBeUndefined();
            return;
          }
          const id = `${stream}_${seq}${tag}`;
          expect(id.length).toBeLessThanOrEqual(maxEventIdLength);
          // Nothing an SSE field or an HTTP header could misread, and one `.` per part.
          expect(id).toMatch(/^\d+_\d+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
          expect(parseEventId(id)).toEqual({
            stream,
            seq,
            tag,
            owner: { replica, requestId: Object.is(requestId, -0) ? 0 : requestId },
          });
        },
      ),
    );
  });

  it('what cannot be carried is said so (the owner then goes to the store)', () => {
    expect(replicaTagPart('')).toBeUndefined();
    expect(replicaTagPart('r'.repeat(65))).toBeUndefined();
    expect(replicaTagPart('é'.repeat(33))).toBeUndefined();
    const part = replicaTagPart('r')!;
    expect(ownerTag(part, 'x'.repeat(97))).toBeUndefined();
    expect(ownerTag(part, 1.5)).toBeUndefined();
    expect(ownerTag(part, 2 ** 53)).toBeUndefined();
    expect(ownerTag(part, Number.NaN)).toBeUndefined();
    // A lone surrogate would not come back from UTF-8 as it was.
    expect(ownerTag(part, '\ud800')).toBeUndefined();
  });

  it('any text as Last-Event-ID: never throws, and what parses is an id as written here', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300, unit: 'binary' }),
          fc.stringMatching(/^\d{1,17}_\d{1,17}(\.[A-Za-z0-9_=.-]{0,90}){0,3}$/),
        ),
        (text) => {
          const parsed = parseEventId(text);
          if (parsed === undefined) return;
          expect(text.length).toBeLessThanOrEqual(maxEventIdLength);
          expect(`${parsed.stream}_${parsed.seq}${parsed.tag}`).toBe(text);
          if (parsed.owner === undefined) expect(parsed.tag).toBe('');
          else
            expect(ownerTag(replicaTagPart(parsed.owner.replica)!, parsed.owner.requestId)).toBe(
              parsed.tag,
            );
        },
      ),
    );
  });

  it('ids without an owner: `<stream>_<seq>` as before', () => {
    expect(parseEventId('12_3')).toEqual({ stream: 12, seq: 3, tag: '' });
    expect(parseEventId('0_0')).toEqual({ stream: 0, seq: 0, tag: '' });
    for (const bad of [
      '',
      '1',
      '_1',
      '1_',
      '1_2_3',
      ' 1_2',
      '1_2 ',
      '1e3_1',
      `${'9'.repeat(16)}_1`,
    ])
      expect(parseEventId(bad)).toBeUndefined();
  });
});
