import { defineConfig } from 'vitest/config';

const report = process.env.MCPKIT_CONFORMANCE_REPORT;

// A run of its own, after the main suite: sse-retry is timing-sensitive on 2 cores. Within
// conformance.test.ts the scenarios of a suite run side by side (not sse-retry's suite),
// at most 3 at once: each is a runner and a driver process, mostly waiting on each other.
export default defineConfig({
  test: {
    include: ['tests/conformance/**/*.test.ts'],
    fileParallelism: false,
    maxConcurrency: 3,
    testTimeout: 180_000,
    globalSetup: ['./tests/global-setup.ts'],
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
  },
});
