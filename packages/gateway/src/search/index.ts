export { type IndexedTool, ToolIndex, words } from './tool-index.js';
