import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyLimited } from './bounded-body.js';

const tooLarge = (n: number) => Object.assign(new Error(`too large: ${n}`), { receivedBytes: n });

describe('readBodyLimited on a Node stream (read by its events)', () => {
  it('joins chunks byte-exact, a character split across chunks included', async () => {
    const bytes = Buffer.from('{"text":"é€😀"}');
    const body = new PassThrough();
    const read = readBodyLimited(body, 1024, tooLarge);
    for (let i = 0; i < bytes.length; i += 3) body.write(bytes.subarray(i, i + 3));
    body.end();
    await expect(read).resolves.toBe('{"text":"é€😀"}');
  });

  it('the chunk that crosses the limit destroys the body and rejects with tooLarge', async () => {
    const body = new PassThrough();
    const read = readBodyLimited(body, 10, tooLarge);
    body.write(Buffer.alloc(6));
    body.write(Buffer.alloc(6));
    await expect(read).rejects.toThrow('too large: 12');
    expect(body.destroyed).toBe(true);
  });

  it('a body destroyed before its end rejects (no promise left pending)', async () => {
    const body = new PassThrough();
    const read = readBodyLimited(body, 1024, tooLarge);
    body.write('{"partial":');
    body.destroy();
    await expect(read).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('a body that fails rejects with its error', async () => {
    const body = new PassThrough();
    const read = readBodyLimited(body, 1024, tooLarge);
    body.destroy(new Error('socket hang up'));
    await expect(read).rejects.toThrow('socket hang up');
  });

  it('an empty body is the empty string', async () => {
    await expect(readBodyLimited(Readable.from([]), 10, tooLarge)).resolves.toBe('');
  });
});
