import { packageBuild } from '../../tsup.package.js';

export default packageBuild(['src/index.ts', 'src/node/index.ts']);
