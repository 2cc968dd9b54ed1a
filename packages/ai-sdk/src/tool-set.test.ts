import type { HostTool, HostToolResult } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { ToolResultError } from './errors.js';
import { createToolSet } from './tool-set.js';

const result = (text: string, isError = false): HostToolResult => ({
  content: [{ type: 'text', text }],
  text,
  isError,
  truncated: false,
  files: [],
});

/** A hand-made host tool (a mock): the schemas below are faults a real peer won't send on demand. */
function hostTool(name: string, inputSchema: unknown, answer = result('ok')): HostTool {
  return {
    name: `mcp__s__${name}`,
    server: 's',
    tool: name,
    description: `the ${name} tool`,
    inputSchema: inputSchema as object,
    readOnly: true,
    destructive: false,
    idempotent: true,
    openWorld: false,
    concurrencySafe: true,
    call: async () => answer,
  };
}

const execute = (t: unknown, input: Record<string, unknown> = {}) =>
  (t as { execute: (i: unknown, o: unknown) => Promise<HostToolResult> }).execute(input, {
    toolCallId: 'c1',
    messages: [],
  });

describe('createToolSet', () => {
  it('mock source: a tool whose inputSchema is not an object schema is left out with a warning, the others kept', async () => {
    const warnings: string[] = [];
    const set = await createToolSet(
      {
        tools: async () => [
          hostTool('good', { type: 'object', properties: { a: { type: 'string' } } }),
          hostTool('stringy', { type: 'string' }),
          hostTool('listy', [{ type: 'object' }]),
        ],
      },
      { onWarning: (w) => warnings.push(w) },
    );
    expect(Object.keys(set)).toEqual(['mcp__s__good']);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toBe(
      'MCP server "s": tool "stringy" left out of the AI SDK tool set: its inputSchema is not a JSON Schema of type "object"; fix the server\'s tool definition',
    );
  });

  it('mock source: a tool whose inputSchema nests 100,000 deep is left out with a warning (no RangeError), the others kept', async () => {
    const warnings: string[] = [];
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    const set = await createToolSet(
      {
        tools: async () => [
          hostTool('good', { type: 'object' }),
          hostTool('deep', { type: 'object', properties: { x: { default: deep } } }),
        ],
      },
      { onWarning: (w) => warnings.push(w) },
    );
    expect(Object.keys(set)).toEqual(['mcp__s__good']);
    expect(warnings).toEqual([
      'MCP server "s": tool "deep" left out of the AI SDK tool set: its inputSchema nests deeper than the 256-level limit',
    ]);
  });

  it('mock source: an object schema without type or properties is completed for providers that require them', async () => {
    const set = await createToolSet({ tools: async () => [hostTool('bare', {})] });
    const schema = (set.mcp__s__bare!.inputSchema as { jsonSchema: unknown }).jsonSchema;
    expect(schema).toEqual({ type: 'object', properties: {} });
  });

  it('mock source: an isError result is thrown as ToolResultError carrying the result, cut in the message', async () => {
    const long = 'x'.repeat(5_000);
    const set = await createToolSet({
      tools: async () => [hostTool('bad', {}, result(long, true))],
    });
    const error = await execute(set.mcp__s__bad).catch((e: unknown) => e);
    expect(ToolResultError.isInstance(error)).toBe(true);
    const e = error as ToolResultError;
    expect(e.result.text).toBe(long);
    expect(e.message).toContain(`${'x'.repeat(2_000)}… [truncated] — check the arguments`);
    expect(e.message.length).toBeLessThan(2_200);
  });

  it("mock source: with errors: 'result' an isError result is returned, not thrown", async () => {
    const set = await createToolSet(
      { tools: async () => [hostTool('bad', {}, result('nope', true))] },
      { errors: 'result' },
    );
    await expect(execute(set.mcp__s__bad)).resolves.toMatchObject({ isError: true, text: 'nope' });
  });

  it('mock source: arguments that are not a JSON object are refused by the input schema, before any call', async () => {
    let calls = 0;
    const t = hostTool('any', {});
    const set = await createToolSet({
      tools: async () => [
        {
          ...t,
          call: async () => {
            calls++;
            return result('ok');
          },
        },
      ],
    });
    const schema = set.mcp__s__any!.inputSchema as {
      validate: (
        v: unknown,
      ) => { success: boolean; error?: Error } | Promise<{ success: boolean; error?: Error }>;
    };
    for (const [value, said] of [
      [[1], 'an array'],
      [null, 'null'],
      ['x', 'a string'],
    ] as const) {
      const verdict = await schema.validate(value);
      expect(verdict.success).toBe(false);
      expect(verdict.error?.message).toBe(
        `MCP server "s": tool "any" takes its arguments as a JSON object, got ${said}; call it again with an object`,
      );
    }
    expect(await schema.validate({ a: 1 })).toEqual({ success: true, value: { a: 1 } });
    expect(calls).toBe(0);
  });
});
