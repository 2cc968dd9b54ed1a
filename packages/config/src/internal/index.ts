// NOT PUBLIC API. `@mcpkit/config/internal` holds what mcpkit's own packages (the manager)
// share with the config: an entry's signature (what a reload compares) and its URL, and
// SHA-256 with node:crypto loaded on first use (the CLI's gateway identity). Anything
// here may change or go in any release, patch releases included, without a changeset entry
// for your code: import from `@mcpkit/config` instead. It is not covered by the API report
// either.
export { serverSignature, sha256Hex, urlOf } from '../signature.js';
