import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { McpClient } from './mcp-client.js';
import { checkClientOptions, type McpClientOptions } from './options.js';

describe('McpClient numeric options (issue #10 finding 13)', () => {
  it.each<[keyof McpClientOptions, unknown, RegExp]>([
    ['requestTimeoutMs', Number.NaN, /from 0 to 2147483647 \(or Infinity for none\); got NaN/],
    ['requestTimeoutMs', -1, /from 0 to 2147483647/],
    ['requestTimeoutMs', 99_999_999_999, /from 0 to 2147483647.*got 99999999999/],
    ['discoverTimeoutMs', 0, /from 1 to 2147483647; got 0/],
    ['discoverTimeoutMs', Number.POSITIVE_INFINITY, /from 1 to 2147483647; got Infinity/],
    ['maxPages', 0, /"maxPages" must be an integer from 1 to 1000000; got 0/],
    ['maxPages', 2.5, /"maxPages" must be an integer/],
    ['maxPages', Number.NaN, /"maxPages" must be an integer/],
    ['maxInputRounds', -1, /"maxInputRounds" must be an integer from 0 to 1000000; got -1/],
    ['maxInputRounds', Number.POSITIVE_INFINITY, /"maxInputRounds" must be an integer/],
  ])('refuses %s = %s at construction', (name, value, message) => {
    expect(() => new McpClient({ name: 'gh', [name]: value })).toThrow(TypeError);
    expect(() => new McpClient({ name: 'gh', [name]: value })).toThrow(
      new RegExp(`^McpClient \\(server "gh"\\): "${name}" must be`),
    );
    expect(() => checkClientOptions({ [name]: value })).toThrow(message);
  });

  it.each<[keyof McpClientOptions, number]>([
    ['requestTimeoutMs', 0],
    ['requestTimeoutMs', Number.POSITIVE_INFINITY],
    ['requestTimeoutMs', 2 ** 31 - 1],
    ['discoverTimeoutMs', 1],
    ['maxPages', 1],
    ['maxInputRounds', 0],
  ])('accepts %s = %s', (name, value) => {
    expect(() => new McpClient({ [name]: value })).not.toThrow();
  });

  it('a per-call timeoutMs of 99999999999 rejects with a TypeError instead of overflowing the timer', async () => {
    const [clientSide, serverSide] = createInProcessPair();
    await serverSide.start();
    const client = new McpClient({ era: 'legacy' });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      await expect(client.connect(clientSide, { timeoutMs: 99_999_999_999 })).rejects.toThrow(
        /"timeoutMs" must be a number of milliseconds from 0 to 2147483647/,
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await client.close().catch(() => {});
      await serverSide.close();
    }
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });
});
