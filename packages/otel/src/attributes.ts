/** The attribute and metric names we emit (OpenTelemetry MCP semantic conventions). */
export const McpAttr = {
  MethodName: 'mcp.method.name',
  SessionId: 'mcp.session.id',
  ProtocolVersion: 'mcp.protocol.version',
  ResourceUri: 'mcp.resource.uri',
  ToolName: 'gen_ai.tool.name',
  PromptName: 'gen_ai.prompt.name',
  OperationName: 'gen_ai.operation.name',
  ToolCallArguments: 'gen_ai.tool.call.arguments',
  ToolCallResult: 'gen_ai.tool.call.result',
  RequestId: 'jsonrpc.request.id',
  ResponseStatusCode: 'rpc.response.status_code',
  ErrorType: 'error.type',
  NetworkTransport: 'network.transport',
  NetworkProtocolName: 'network.protocol.name',
  NetworkProtocolVersion: 'network.protocol.version',
  ServerAddress: 'server.address',
  ServerPort: 'server.port',
  ClientAddress: 'client.address',
  ClientPort: 'client.port',
  /** Ours (no convention names the configured server): the name in the host's config. */
  ServerName: 'mcpkit.server.name',
  /** Ours: the manager's connection attempts and states. */
  ConnectionAttempt: 'mcpkit.connection.attempt',
  ConnectionState: 'mcpkit.connection.state',
  ConnectionPreviousState: 'mcpkit.connection.previous_state',
  ConnectionReason: 'mcpkit.connection.reason',
  /** Ours: the number of a scheduled reconnect attempt (1 for the first after a drop). */
  ReconnectAttempt: 'mcpkit.connection.reconnect_attempt',
  /** Ours: how long until that attempt starts, in milliseconds. */
  ReconnectDelay: 'mcpkit.connection.reconnect_delay_ms',
} as const;

export const McpMetric = {
  ClientOperationDuration: 'mcp.client.operation.duration',
  ServerOperationDuration: 'mcp.server.operation.duration',
  ClientSessionDuration: 'mcp.client.session.duration',
  ServerSessionDuration: 'mcp.server.session.duration',
  /** Ours: servers of a manager by connection state. */
  ManagerServers: 'mcpkit.manager.servers',
} as const;
