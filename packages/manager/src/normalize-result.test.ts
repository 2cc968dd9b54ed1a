import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JsonTooDeepError } from '@mcpkit/jsonrpc';
import { afterEach, expect, test } from 'vitest';
import {
  extensionFor,
  FileSink,
  normalizeResult,
  normalizeTextResult,
} from './normalize-result.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function sink() {
  const root = mkdtempSync(path.join(tmpdir(), 'mcpkit-sink-'));
  roots.push(root);
  return { root, files: new FileSink(root) };
}

test('the budget cuts text with an explicit marker and keeps file references and structuredContent', async () => {
  const { files } = sink();
  const result = await normalizeResult(
    {
      content: [
        { type: 'text', text: 'a'.repeat(30) },
        { type: 'image', data: Buffer.from('png-bytes').toString('base64'), mimeType: 'image/png' },
        { type: 'text', text: 'b'.repeat(30) },
        { type: 'text', text: 'c'.repeat(30) },
      ],
      structuredContent: { ok: true },
    },
    { server: 's', tool: 't', budgetChars: 45, files },
  );
  expect(result.truncated).toBe(true);
  expect(result.text).toContain('a'.repeat(30));
  expect(result.text).toContain(`${'b'.repeat(15)}\n`);
  expect(result.text).not.toContain('ccc');
  expect(result.text).toContain('[output truncated: showing 45 of 90 characters');
  expect(result.files).toHaveLength(1);
  expect(result.structuredContent).toEqual({ ok: true });
  await files.dispose();
});

test('binary goes to 0600 files in a private 0700 directory that dispose() removes', async () => {
  const { root, files } = sink();
  const result = await normalizeResult(
    {
      content: [
        { type: 'audio', data: Buffer.from('wav').toString('base64'), mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: {
            uri: 'file:///x.pdf',
            mimeType: 'application/pdf',
            blob: Buffer.from('%PDF').toString('base64'),
          },
        },
        { type: 'image', data: '', mimeType: '../../etc/passwd' },
      ],
    },
    { server: '../evil', tool: 'a/b', budgetChars: 1000, files },
  );
  expect(result.files.map((f) => path.extname(f.path))).toEqual(['.wav', '.pdf', '.bin']);
  const [dir] = readdirSync(root);
  expect(statSync(path.join(root, dir!)).mode & 0o777).toBe(0o700);
  for (const f of result.files) {
    expect(path.dirname(f.path)).toBe(path.join(root, dir!));
    expect(statSync(f.path).mode & 0o777).toBe(0o600);
  }
  await files.dispose();
  expect(readdirSync(root)).toEqual([]);
});

test('extensions come from a fixed table', () => {
  expect(extensionFor('image/jpeg; charset=binary')).toBe('jpg');
  expect(extensionFor('IMAGE/PNG')).toBe('png');
  expect(extensionFor('application/x-evil/../../')).toBe('bin');
  expect(extensionFor(undefined)).toBe('bin');
});

test('the synchronous text path gives what the full path gives, and steps aside for anything else', async () => {
  const { files } = sink();
  const textOnly = [
    { content: [{ type: 'text' as const, text: 'one' }] },
    {
      content: [
        { type: 'text' as const, text: 'one' },
        { type: 'text' as const, text: 'two', annotations: { priority: 1 } },
      ],
      isError: true,
      structuredContent: { n: 2 },
    },
    { content: [{ type: 'text' as const, text: 'x'.repeat(10) }] },
  ];
  for (const result of textOnly)
    expect(normalizeTextResult(result, 10)).toEqual(
      await normalizeResult(result, { server: 's', tool: 't', budgetChars: 10, files }),
    );
  // Over the budget, binary, a resource, an empty list, a non-string text: the full path.
  expect(normalizeTextResult({ content: [{ type: 'text', text: 'x'.repeat(11) }] }, 10)).toBe(
    undefined,
  );
  expect(
    normalizeTextResult(
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
        ],
      },
      10,
    ),
  ).toBe(undefined);
  expect(
    normalizeTextResult(
      { content: [{ type: 'resource', resource: { uri: 'file:///a', text: 'a' } }] },
      10,
    ),
  ).toBe(undefined);
  expect(normalizeTextResult({ content: [], structuredContent: { a: 1 } }, 10)).toBe(undefined);
  expect(
    normalizeTextResult({ content: [{ type: 'text', text: 5 as unknown as string }] }, 10),
  ).toBe(undefined);
});

test('a structuredContent nested 100,000 deep fails with JsonTooDeepError naming the server and tool, not a RangeError', async () => {
  const { files } = sink();
  const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
  const failure = await normalizeResult(
    { content: [], structuredContent: { deep } as Record<string, unknown> },
    { server: 's', tool: 't', budgetChars: 1000, files },
  ).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(JsonTooDeepError);
  expect((failure as Error).message).toBe(
    'server "s": the structuredContent of tool "t" nests deeper than the 256-level limit',
  );
});
