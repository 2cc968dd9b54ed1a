/** Letters, digits, `-` and `_`. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Every `type` a server entry may have. */
export const SERVER_TYPES = [
  'stdio',
  'sse',
  'http',
  'streamable-http',
  'ws',
  'sse-ide',
  'ws-ide',
  'sdk',
  'proxy',
] as const;

export type ServerType = (typeof SERVER_TYPES)[number];
