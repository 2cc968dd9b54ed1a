export { type ToolSearchOptions, visibleToModel } from './search-tools.js';
export { type IndexedTool, ToolIndex, words } from './tool-index.js';
