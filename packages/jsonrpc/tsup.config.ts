import { packageBuild } from '../../tsup.package.js';

export default packageBuild(['src/index.ts', 'src/errors-entry.ts']);
