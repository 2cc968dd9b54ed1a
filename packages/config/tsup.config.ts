import { packageBuild } from '../../tsup.package.js';

export default packageBuild(['src/index.ts', 'src/advanced.ts', 'src/schema.ts']);
