import { defineConfig, type Options } from 'tsup';

/** The build every published package shares: ESM for Node 20, declarations, source maps. */
export function packageBuild(entry: string[] = ['src/index.ts'], overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    dts: true,
    sourcemap: true,
    clean: true,
    ...overrides,
  });
}
