import type { JsonRpcMessage, Transport, TransportCapabilities } from '@mcpkit/jsonrpc';

/** Facts about a transport that only mean something in MCP. */
export interface McpTransportCapabilities extends TransportCapabilities {
  /**
   * The transport exists only in handshake-era revisions (legacy HTTP+SSE): a client
   * does not probe it for 2026-07-28.
   */
  readonly legacyOnly?: boolean;
}

/**
 * A JSON-RPC `Transport` with the optional members an MCP client uses to tell it about the
 * protocol: every member is optional, so any `Transport` is an `McpTransport` (stdio,
 * in-process, WebSocket need none of them; the HTTP transports implement them).
 */
export interface McpTransport extends Transport {
  readonly capabilities?: McpTransportCapabilities;
  /**
   * Where a client may cache what it learned of the server's era: the same key means the
   * same server (an HTTP endpoint). Absent when the answer lives only as long as the
   * connection (a stdio process).
   */
  readonly eraKey?: string;
  /**
   * Told the protocol version in force (HTTP transports send it as a header and pick the
   * binding by it); `undefined` while none is (an `initialize` after a failed probe).
   */
  setProtocolVersion?(version: string | undefined): void;
  /**
   * HTTP transports: extra headers for each outgoing message, e.g. the 2026-07-28
   * `Mcp-Param-*` headers a client derives from a tool's input schema.
   */
  setMessageHeaders?(
    headers: ((message: JsonRpcMessage) => Record<string, string> | undefined) | undefined,
  ): void;
  /** Forgets the session (after `SessionExpiredError`), so that a new `initialize` starts a fresh one. */
  resetSession?(): void;
}
