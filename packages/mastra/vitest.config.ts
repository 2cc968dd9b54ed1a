import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@mcpkit/source'] },
  ssr: { resolve: { conditions: ['@mcpkit/source'] } },
  test: { include: ['src/**/*.test.ts'] },
});
