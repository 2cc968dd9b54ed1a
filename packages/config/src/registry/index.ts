/**
 * `@mcpkit/config/registry`: servers from an MCP Registry (the official one at
 * registry.modelcontextprotocol.io, or an enterprise one with the same API) and the
 * mapping of a `server.json` into a config entry.
 */
export {
  MAX_REGISTRY_BYTES,
  MAX_REGISTRY_REDIRECTS,
  MAX_SEARCH_PAGES,
  OFFICIAL_REGISTRY,
  RegistryClient,
  type RegistryClientOptions,
  registryBase,
  type SearchOptions,
  type SearchResult,
} from './client.js';
export {
  RegistryError,
  RegistryErrorCode,
  type RegistryErrorFacts,
  type RegistrySchemaError,
} from './errors.js';
export {
  type Answer,
  type Candidate,
  candidates,
  checkStatus,
  chooseCandidate,
  type InstallKind,
  localName,
  OFFICIAL_META,
  type OfficialMeta,
  type PlannedEntry,
  parseRegistryEntry,
  parseServerSpec,
  type RegistryArgument,
  type RegistryEntry,
  type RegistryInput,
  type RegistryKeyValue,
  type RegistryPackage,
  type RegistryQuestion,
  type RegistryTransport,
  referenceName,
  type ServerJson,
  type ToConfigEntryOptions,
  toConfigEntry,
  transportsOf,
  unanswered,
} from './server-json.js';
