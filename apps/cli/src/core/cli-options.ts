import type { ParseArgsConfig } from 'node:util';

/**
 * Every flag the CLI takes (node:util parseArgs options). Its own module so that the check
 * for "this entry runs mcpkit serve" reads a command line exactly as the CLI does.
 */
export const cliOptions = {
  config: { type: 'string', short: 'c', multiple: true },
  'strict-config': { type: 'boolean' },
  scope: { type: 'string' },
  transport: { type: 'string' },
  env: { type: 'string', short: 'e', multiple: true },
  header: { type: 'string', short: 'H', multiple: true },
  from: { type: 'string' },
  all: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  server: { type: 'string', short: 's', multiple: true },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'login-timeout': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  sanitize: { type: 'boolean' },
  'show-secrets': { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'no-browser': { type: 'boolean' },
  http: { type: 'string' },
  token: { type: 'string' },
  separator: { type: 'string' },
  'no-prefix': { type: 'boolean' },
  tools: { type: 'string', multiple: true },
  'sse-poll-ms': { type: 'string' },
  'backend-wait-ms': { type: 'string' },
  'no-progress': { type: 'boolean' },
  elicit: { type: 'string' },
  root: { type: 'string', multiple: true },
  trace: { type: 'string' },
  'no-roots': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];
