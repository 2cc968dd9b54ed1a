/**
 * `@mcpkit/jsonrpc/errors`: the error classes and `isRecord` alone, for packages that need
 * nothing else of JSON-RPC (`@mcpkit/config`, on the CLI's `list` path). The same classes
 * as the main entry's (one shared chunk in the build), so brands and `instanceof` agree.
 */
export * from './errors.js';
export { isRecord } from './is-record.js';
