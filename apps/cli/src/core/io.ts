/**
 * What every command writes to and the error a command throws for a bad command line. No
 * dependency, so that `--version` and `--help` load nothing else.
 */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A server's own words on stderr (its stderr lines): data, not the CLI's message. */
  serverStderr?: (text: string) => void;
}

/** A bad command line: printed with the usage hint, exit code 2. */
export class UsageError extends Error {}
