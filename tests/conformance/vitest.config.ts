import { defineConfig } from 'vitest/config';

const report = process.env.MCPKIT_CONFORMANCE_REPORT;

// A run of its own, after the main suite: sse-retry is timing-sensitive on 2 cores.
export default defineConfig({
  test: {
    include: ['tests/conformance/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    globalSetup: ['./tests/global-setup.ts'],
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
  },
});
