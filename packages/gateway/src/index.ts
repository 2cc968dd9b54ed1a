export { exposedName, type NamedPair, nameAll, toolFilter } from './exposed-names.js';
export {
  createGateway,
  Gateway,
  type GatewayOptions,
  gatewayHandlers,
} from './gateway.js';
export { type IndexedTool, ToolIndex, type ToolSearchOptions } from './search/index.js';
export type { SoleClient } from './sole-client.js';
