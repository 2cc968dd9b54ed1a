import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tests'],
    // Runs once around every project: fails the run if any test left a process behind.
    globalSetup: ['./tests/global-setup.ts'],
  },
});
