import { describe, expect, it } from 'vitest';
import { main as jsonRpcInProcess } from '../examples/json-rpc-in-process.js';
import { main as stdioClient } from '../examples/stdio-client.js';

// The examples are real programs; running them here keeps them working.
describe('examples', () => {
  it('json-rpc-in-process.ts', async () => {
    expect(await jsonRpcInProcess()).toBe(
      'count → {"counted":3} after progress 1,2,3; sleep timed out: true',
    );
  });

  it('stdio-client.ts', async () => {
    expect(await stdioClient()).toMatch(/^\d+ tools; get-sum\(2, 3\) → .*\b5\b/);
  });
});
