/** Codes of the errors `@mcpkit/config` throws (their `code`). Stable: match on these. */
export const ConfigErrorCode = {
  /** A config path is a FIFO, a device, a socket or a folder (`ConfigReadError`). */
  NotAFile: 'MCPKIT_CONFIG_NOT_A_FILE',
  /** A config file is larger than `MAX_CONFIG_FILE_BYTES` (`ConfigReadError`). */
  TooLarge: 'MCPKIT_CONFIG_TOO_LARGE',
  /** A config file exists but cannot be read: permissions, a symlink loop, I/O (`ConfigReadError`). */
  Unreadable: 'MCPKIT_CONFIG_UNREADABLE',
  /** A config file could not be changed (`ConfigWriteError`). */
  Write: 'MCPKIT_CONFIG_WRITE',
  /** The resolved entry may not be contacted: not approved, rejected, blocked, disabled, skipped (`ServerNotEnabledError`). */
  NotEnabled: 'MCPKIT_SERVER_NOT_ENABLED',
} as const;
export type ConfigErrorCode = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];
