export {
  applyShellPrefix,
  quotePosix,
  quoteWindows,
  type ResolvedCommand,
  resolveCommand,
} from './command-line.js';
export { type InheritEnv, inheritedEnvironment, NETWORK_VARIABLES } from './environment.js';
export { ProcessExitedError, ProcessSpawnError, StdioErrorCode } from './errors.js';
export {
  DEFAULT_STDERR_BUFFER_CHARS,
  StdioTransport,
  type StdioTransportOptions,
  stdioCloseDefaults,
} from './stdio-transport.js';
