import { packageBuild } from '../../tsup.package.js';

// `src/internal/index.ts` → `dist/internal/index.js`: the `./internal` subpath (not public API).
export default packageBuild(['src/index.ts', 'src/internal/index.ts']);
