import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcpJsonSchema } from './json-schema.js';

describe('JSON Schema of .mcp.json', () => {
  it('matches the committed schema.json (regenerate with: pnpm --filter @mcpkit/config schema)', () => {
    const committed = JSON.parse(
      readFileSync(fileURLToPath(new URL('../schema.json', import.meta.url)), 'utf8'),
    );
    expect(mcpJsonSchema()).toEqual(committed);
  });

  it('describes every server type', () => {
    const text = JSON.stringify(mcpJsonSchema());
    for (const type of [
      'stdio',
      'sse',
      'http',
      'streamable-http',
      'ws',
      'sse-ide',
      'ws-ide',
      'sdk',
      'proxy',
    ]) {
      expect(text).toContain(`"${type}"`);
    }
  });
});
