import { packageBuild } from '../../tsup.package.js';

// The HTTP-first fallback is its own entry: the manager loads it (and both HTTP transports)
// only when an `http` entry needs it.
export default packageBuild(['src/index.ts', 'src/http-fallback.ts']);
