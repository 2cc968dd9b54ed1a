import { defineConfig } from 'vitest/config';

const report = process.env.MCPKIT_TEST_REPORT;

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tests'],
    // Two files at a time: on this 2-core CI one worker left a core idle while a file waited
    // on its child processes (one file at a time measured 969 s, 259 s of it with no file running).
    maxWorkers: 2,
    // Runs once around every project: fails the run if any test left a process behind.
    globalSetup: ['./tests/global-setup.ts'],
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
  },
});
