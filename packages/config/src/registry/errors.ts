import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc/errors';

/** Codes of the errors the MCP Registry client and the `server.json` mapping throw. */
export const RegistryErrorCode = {
  /** The registry could not be reached (refused, reset, DNS): `cause` has the socket error. */
  Unreachable: 'MCPKIT_REGISTRY_UNREACHABLE',
  /** The registry answered an HTTP error status (not 404 on a lookup): `status`. */
  Http: 'MCPKIT_REGISTRY_HTTP',
  /** No such server (or version) in the registry: it answered 404. */
  NotFound: 'MCPKIT_REGISTRY_NOT_FOUND',
  /** The answer was larger than the byte bound: `limitBytes`. */
  TooLarge: 'MCPKIT_REGISTRY_TOO_LARGE',
  /** No whole answer within the time budget: `timeoutMs`. */
  Timeout: 'MCPKIT_REGISTRY_TIMEOUT',
  /** The answer was not JSON, or not the shape of the registry API. */
  Malformed: 'MCPKIT_REGISTRY_MALFORMED',
  /** The registry redirected to another origin, or too many times: `location`. */
  Redirect: 'MCPKIT_REGISTRY_REDIRECT',
  /** The entry is deprecated or deleted: `status`, `statusMessage`. */
  Status: 'MCPKIT_REGISTRY_STATUS',
  /** Nothing in the entry can be turned into a config entry (mcpb, nuget, ...): `reasons`. */
  Unsupported: 'MCPKIT_REGISTRY_UNSUPPORTED',
  /** The entry's values do not make a valid config entry (a URL that is not http(s), ...). */
  InvalidEntry: 'MCPKIT_REGISTRY_INVALID_ENTRY',
  /**
   * The entry's `server.json` does not match the official `server.json` JSON Schema:
   * `schemaErrors` (the first few), `schemaErrorCount` (all).
   */
  SchemaInvalid: 'MCPKIT_REGISTRY_SCHEMA_INVALID',
} as const;
export type RegistryErrorCode = (typeof RegistryErrorCode)[keyof typeof RegistryErrorCode];

/** One place where a `server.json` fails the official schema. */
export interface RegistrySchemaError {
  /** JSON Pointer into the `server.json` (`/packages/0/version`; `` for the document). */
  instancePath: string;
  /** JSON Pointer into the schema of the rule it fails (`#/definitions/Package/...`). */
  schemaPath: string;
  /** The validator's words (`must NOT be valid`, `must have required property 'name'`). */
  message: string;
}

export interface RegistryErrorFacts {
  /** The registry's base URL. */
  registry?: string | undefined;
  /** The URL asked. */
  url?: string | undefined;
  /** The server's name in the registry. */
  server?: string | undefined;
  status?: number | string | undefined;
  statusMessage?: string | undefined;
  location?: string | undefined;
  limitBytes?: number | undefined;
  timeoutMs?: number | undefined;
  /** Why each package or remote could not be used. */
  reasons?: readonly string[] | undefined;
  /** Where the `server.json` fails the schema (the first few). */
  schemaErrors?: readonly RegistrySchemaError[] | undefined;
  /** How many places fail the schema in all. */
  schemaErrorCount?: number | undefined;
}

/** What went wrong with an MCP Registry or one of its entries; the facts are fields. */
export class RegistryError extends McpkitError {
  static readonly brand: string = '@mcpkit/config.RegistryError';
  override readonly name: string = 'RegistryError';
  readonly registry: string | undefined;
  readonly url: string | undefined;
  readonly server: string | undefined;
  readonly status: number | string | undefined;
  readonly statusMessage: string | undefined;
  readonly location: string | undefined;
  readonly limitBytes: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly reasons: readonly string[];
  readonly schemaErrors: readonly RegistrySchemaError[];
  readonly schemaErrorCount: number | undefined;
  constructor(
    code: RegistryErrorCode,
    message: string,
    facts: RegistryErrorFacts = {},
    options?: McpkitErrorOptions,
  ) {
    super(code, message, options);
    this.registry = facts.registry;
    this.url = facts.url;
    this.server = facts.server;
    this.status = facts.status;
    this.statusMessage = facts.statusMessage;
    this.location = facts.location;
    this.limitBytes = facts.limitBytes;
    this.timeoutMs = facts.timeoutMs;
    this.reasons = facts.reasons ?? [];
    this.schemaErrors = facts.schemaErrors ?? [];
    this.schemaErrorCount = facts.schemaErrorCount;
  }
}
