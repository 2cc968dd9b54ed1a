/** Request methods a client sends. */
export const ClientMethod = {
  Initialize: 'initialize',
  Ping: 'ping',
  ListTools: 'tools/list',
  CallTool: 'tools/call',
  ListResources: 'resources/list',
  ListResourceTemplates: 'resources/templates/list',
  ReadResource: 'resources/read',
  Subscribe: 'resources/subscribe',
  Unsubscribe: 'resources/unsubscribe',
  ListPrompts: 'prompts/list',
  GetPrompt: 'prompts/get',
  Complete: 'completion/complete',
  SetLevel: 'logging/setLevel',
  GetTask: 'tasks/get',
  GetTaskResult: 'tasks/result',
  CancelTask: 'tasks/cancel',
  ListTasks: 'tasks/list',
  Discover: 'server/discover',
  SubscriptionsListen: 'subscriptions/listen',
} as const;

/** Request methods a server sends to the client. */
export const ServerMethod = {
  Ping: 'ping',
  CreateMessage: 'sampling/createMessage',
  Elicit: 'elicitation/create',
  ListRoots: 'roots/list',
} as const;

export const Notification = {
  Initialized: 'notifications/initialized',
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  Message: 'notifications/message',
  ToolsListChanged: 'notifications/tools/list_changed',
  ResourcesListChanged: 'notifications/resources/list_changed',
  ResourceUpdated: 'notifications/resources/updated',
  PromptsListChanged: 'notifications/prompts/list_changed',
  RootsListChanged: 'notifications/roots/list_changed',
  ElicitationComplete: 'notifications/elicitation/complete',
  TaskStatus: 'notifications/tasks/status',
  /** 2026-07-28: the first message of a `subscriptions/listen` stream. */
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
} as const;

/** Reserved `_meta` keys of the 2026-07-28 revision. */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** HTTP header names used by the HTTP transports. */
export const Header = {
  SessionId: 'Mcp-Session-Id',
  ProtocolVersion: 'MCP-Protocol-Version',
  LastEventId: 'Last-Event-ID',
  Method: 'Mcp-Method',
  Name: 'Mcp-Name',
} as const;

/** MCP-specific JSON-RPC error codes. */
export const McpErrorCode = {
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042,
} as const;
