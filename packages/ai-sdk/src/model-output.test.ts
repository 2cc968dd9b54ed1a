import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HostToolResult } from '@mcpkit/manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelOutput } from './model-output.js';

const inline = { mediaTypes: ['image/'], maxBytes: 16 };

describe('toModelOutput', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcpkit-ai-sdk-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const withFile = (file: string, mimeType: string, bytes: number): HostToolResult => {
    const ref = `[image saved to ${file} (${mimeType}, ${bytes} bytes)]`;
    return {
      content: [
        { type: 'text', text: 'before' },
        { type: 'file', kind: 'image', path: file, mimeType, bytes },
        { type: 'text', text: 'after' },
      ],
      text: `before\n${ref}\nafter`,
      isError: false,
      truncated: false,
      files: [{ path: file, mimeType, bytes }],
    };
  };

  it('without inlining the model gets the manager text, references included', async () => {
    const r = withFile('/nowhere/1.png', 'image/png', 4);
    expect(await toModelOutput(r, undefined, false)).toEqual({ type: 'text', value: r.text });
    expect(await toModelOutput(r, inline, true)).toEqual({ type: 'error-text', value: r.text });
  });

  it('an inlined image is read back as file-data between the text parts', async () => {
    const file = path.join(dir, '1.png');
    await writeFile(file, Buffer.from([1, 2, 3, 4]));
    expect(await toModelOutput(withFile(file, 'image/png', 4), inline, false)).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'before' },
        { type: 'file-data', data: 'AQIDBA==', mediaType: 'image/png', filename: '1.png' },
        { type: 'text', text: 'after' },
      ],
    });
  });

  it('a file that is gone (manager closed), too large or of another media type stays a reference', async () => {
    const gone = path.join(dir, 'gone.png');
    for (const r of [
      withFile(gone, 'image/png', 4),
      withFile(path.join(dir, 'big.png'), 'image/png', 17),
      withFile(path.join(dir, 'a.wav'), 'audio/wav', 4),
    ]) {
      const out = await toModelOutput(r, inline, false);
      const text =
        out.type === 'content'
          ? out.value.map((p) => ('text' in p ? p.text : '')).join('\n')
          : out.value;
      expect(text).toBe(r.text);
      expect(out.type === 'content' ? out.value.some((p) => p.type === 'file-data') : false).toBe(
        false,
      );
    }
  });
});
