import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@mcpkit/source'] },
  ssr: { resolve: { conditions: ['@mcpkit/source'] } },
  test: {
    name: 'tests',
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'conformance/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
