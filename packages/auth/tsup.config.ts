import { packageBuild } from '../../tsup.package.js';

// The keychain binding is an optional dependency, loaded at run time when present.
export default packageBuild(['src/index.ts'], { external: ['@napi-rs/keyring'] });
