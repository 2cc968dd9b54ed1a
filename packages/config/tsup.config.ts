import { packageBuild } from '../../tsup.package.js';

// jsonc-parser is bundled from its ESM build: its package's "main" is a UMD file that Node
// loads through the CommonJS loader and the CJS export lexer on every `mcpkit list`.
export default packageBuild(
  // `src/internal/index.ts` → `dist/internal/index.js`: the `./internal` subpath (not public API).
  [
    'src/index.ts',
    'src/advanced.ts',
    'src/schema.ts',
    'src/registry/index.ts',
    'src/internal/index.ts',
  ],
  {
    noExternal: ['jsonc-parser'],
    esbuildOptions(options) {
      options.mainFields = ['module', 'main'];
    },
  },
);
