import { TransportError } from '@mcpkit/jsonrpc';

/** Codes of the errors `@mcpkit/transport-stdio` throws (their `code`). Stable: match on these. */
export const StdioErrorCode = {
  /** The server process exited or was killed while the connection was open (`ProcessExitedError`). */
  ProcessExited: 'MCPKIT_PROCESS_EXITED',
  /** The server process could not be started (`ProcessSpawnError`). */
  ProcessSpawn: 'MCPKIT_PROCESS_SPAWN',
} as const;
export type StdioErrorCode = (typeof StdioErrorCode)[keyof typeof StdioErrorCode];

/** The server process exited (or was killed) while the connection was open. */
export class ProcessExitedError extends TransportError {
  static override readonly brand: string = '@mcpkit/transport-stdio.ProcessExitedError';
  override readonly name = 'ProcessExitedError';
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr. */
  readonly stderrTail: string;
  constructor(
    label: string,
    exitCode: number | null,
    signal: NodeJS.Signals | null,
    stderrTail: string,
  ) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    const tail = stderrTail.trim();
    super(
      `${label}: process ${how}${tail ? `; last stderr:\n${indent(tail)}` : ' (no stderr output)'}`,
      {
        code: StdioErrorCode.ProcessExited,
      },
    );
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
  }
}

/** The server process could not be started at all. */
export class ProcessSpawnError extends TransportError {
  static override readonly brand: string = '@mcpkit/transport-stdio.ProcessSpawnError';
  override readonly name = 'ProcessSpawnError';
  readonly command: string;
  constructor(label: string, command: string, cause: NodeJS.ErrnoException) {
    const hint =
      cause.code === 'ENOENT'
        ? `command not found; check that "${command}" is installed and on PATH (or give an absolute path)`
        : cause.code === 'EACCES'
          ? `permission denied; check that "${command}" is executable`
          : cause.message;
    super(`${label}: cannot start "${command}": ${hint}`, {
      code: StdioErrorCode.ProcessSpawn,
      cause,
    });
    this.command = command;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
