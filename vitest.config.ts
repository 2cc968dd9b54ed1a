import { defineConfig } from 'vitest/config';

const report = process.env.MCPKIT_TEST_REPORT;

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tests'],
    // Runs once around every project: fails the run if any test left a process behind.
    globalSetup: ['./tests/global-setup.ts'],
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
  },
});
