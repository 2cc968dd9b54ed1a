import type { ParseArgsConfig } from 'node:util';

/**
 * The CLI's flags (node:util parseArgs options), by the commands that read them. Apart from
 * the command table, so that what needs only the flags (the self-reference check of `list`
 * and every command) loads none of the commands' help and handlers.
 */

/** node:util parseArgs options. */
export type Flags = NonNullable<ParseArgsConfig['options']>;

/** The flags every command takes: `main.ts` reads them before it dispatches. */
export const globalFlags = {
  config: { type: 'string', short: 'c', multiple: true },
  'strict-config': { type: 'boolean' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'login-timeout': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  sanitize: { type: 'boolean' },
  'show-secrets': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Flags;

/** The flags of every command that starts servers (doctor, shell and the server commands). */
export const serverFlags = {
  'no-browser': { type: 'boolean' },
  root: { type: 'string', multiple: true },
  'no-roots': { type: 'boolean' },
  trace: { type: 'string' },
} as const satisfies Flags;

export const configFlags = {
  scope: { type: 'string' },
} as const satisfies Flags;

export const addFlags = {
  ...configFlags,
  transport: { type: 'string' },
  env: { type: 'string', short: 'e', multiple: true },
  header: { type: 'string', short: 'H', multiple: true },
} as const satisfies Flags;

export const importFlags = {
  ...configFlags,
  from: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const satisfies Flags;

export const registryFlags = {
  registry: { type: 'string', multiple: true },
} as const satisfies Flags;

export const searchFlags = {
  ...registryFlags,
  limit: { type: 'string' },
} as const satisfies Flags;

export const installFlags = {
  ...registryFlags,
  ...configFlags,
  env: { type: 'string', short: 'e', multiple: true },
  'dry-run': { type: 'boolean' },
  'allow-deprecated': { type: 'boolean' },
  store: { type: 'string' },
  use: { type: 'string' },
  as: { type: 'string' },
} as const satisfies Flags;

export const approvalFlags = {
  all: { type: 'boolean' },
} as const satisfies Flags;

export const selectFlags = {
  server: { type: 'string', short: 's', multiple: true },
  verbose: { type: 'boolean', short: 'v' },
} as const satisfies Flags;

export const connectFlags = {
  ...serverFlags,
  ...selectFlags,
  'no-progress': { type: 'boolean' },
  elicit: { type: 'string' },
  'no-check': { type: 'boolean' },
} as const satisfies Flags;

/** `mcpkit serve`'s own flags (with `--server`, `--verbose` and the global ones). */
export const serveFlags = {
  ...selectFlags,
  http: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'no-auth': { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  separator: { type: 'string' },
  'no-prefix': { type: 'boolean' },
  search: { type: 'boolean' },
  tools: { type: 'string', multiple: true },
  'sse-poll-ms': { type: 'string' },
  'backend-wait-ms': { type: 'string' },
  'gateway-config': { type: 'string' },
  endpoint: { type: 'string' },
  redis: { type: 'string' },
  'replica-id': { type: 'string' },
} as const satisfies Flags;

/**
 * Every flag of every command. The command line is parsed with all of them, as before the
 * flags were split by command: a flag that another command reads is accepted and ignored.
 */
/** `mcpkit apps`'s own flags. */
export const appsFlags = {
  port: { type: 'string' },
} as const satisfies Flags;

export const allFlags = {
  ...globalFlags,
  ...appsFlags,
  ...addFlags,
  ...importFlags,
  ...approvalFlags,
  ...searchFlags,
  ...installFlags,
  ...connectFlags,
  ...serveFlags,
} as const satisfies Flags;
