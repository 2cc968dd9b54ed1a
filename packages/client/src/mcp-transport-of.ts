import type { JsonRpcPeer } from '@mcpkit/jsonrpc';
import type { McpTransport } from '@mcpkit/protocol';

/**
 * The peer's transport as an `McpTransport`: every MCP member is optional, so any transport
 * is one, and the client calls each member only when the transport has it.
 */
export const mcpTransportOf = (peer: JsonRpcPeer): McpTransport => peer.transport as McpTransport;
