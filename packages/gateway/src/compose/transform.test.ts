import { RpcError } from '@mcpkit/jsonrpc';
import type { Tool } from '@mcpkit/protocol';
import { describe, expect, it } from 'vitest';
import { type TransformedTool, transformTool } from './transform.js';

const tool: Tool = {
  name: 'write',
  description: 'Writes a file',
  annotations: { destructiveHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      text: { type: 'string', description: 'the text' },
      mode: { type: 'string' },
      root: { type: 'string' },
    },
    required: ['path', 'text', 'root'],
  },
} as Tool;

const ok = (t: ReturnType<typeof transformTool>) => {
  if ('problems' in t) throw new Error(t.problems.join('; '));
  return t as TransformedTool;
};

describe('transformTool', () => {
  const shaped = ok(
    transformTool('fs', tool, {
      description: 'Writes a note',
      annotations: { readOnlyHint: false, title: 'Write' },
      arguments: {
        root: { hide: true, value: '/srv/notes' },
        path: { rename: 'file', description: 'the note' },
        mode: { default: 'append' },
      },
    }),
  );

  it('shows the transformed schema', () => {
    expect(shaped.tool.description).toBe('Writes a note');
    expect(shaped.tool.annotations).toEqual({
      destructiveHint: true,
      readOnlyHint: false,
      title: 'Write',
    });
    expect(shaped.tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        file: { type: 'string', description: 'the note' },
        text: { type: 'string', description: 'the text' },
        mode: { type: 'string', default: 'append' },
      },
      required: ['file', 'text'],
    });
  });

  it('sends the backend its own names, the default and the hidden value', () => {
    expect(shaped.toBackend({ file: 'a.md', text: 'hi' })).toEqual({
      path: 'a.md',
      text: 'hi',
      mode: 'append',
      root: '/srv/notes',
    });
    expect(shaped.toBackend({ file: 'a.md', text: 'hi', mode: 'w' })).toMatchObject({ mode: 'w' });
  });

  it('refuses a client-sent hidden argument and a renamed one by its backend name', () => {
    expect(() => shaped.toBackend({ file: 'a', text: 't', root: '/' })).toThrow(RpcError);
    expect(() => shaped.toBackend({ file: 'a', text: 't', root: '/' })).toThrow(
      /fixed by the gateway/,
    );
    expect(() => shaped.toBackend({ path: 'a', text: 't' })).toThrow(/called "file" here/);
  });

  it('swaps two argument names both ways', () => {
    const swapped = ok(
      transformTool('fs', tool, {
        arguments: { path: { rename: 'text' }, text: { rename: 'path' } },
      }),
    );
    expect(swapped.toBackend({ text: 'p', path: 't' })).toEqual({ path: 'p', text: 't' });
  });

  it('reports transforms that do not fit the tool', () => {
    const bad = transformTool('fs', tool, {
      arguments: { nope: { hide: true }, root: { hide: true }, mode: { rename: 'text' } },
    });
    expect('problems' in bad && bad.problems).toEqual([
      'tool "write" of server "fs" has no argument "nope"',
      'tool "write" of server "fs": argument "root" is required, so hiding it needs a "value"',
      'tool "write" of server "fs": argument "mode" cannot be shown as "text", its own argument',
    ]);
  });
});
