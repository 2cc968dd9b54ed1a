import { closeSync, fchmodSync, fstatSync, openSync, writeSync } from 'node:fs';

/** One line of the audit log (`access.audit`). */
export interface AuditRecord {
  time: string;
  subject: string | undefined;
  clientId: string | undefined;
  session: string | undefined;
  endpoint: string;
  server: string;
  /** `tools/call`, `prompts/get` or `resources/read`. */
  method: string;
  /** The backend's own tool or prompt name, or the resource's URI. */
  tool: string;
  durationMs: number;
  outcome: 'ok' | 'tool-error' | 'protocol-error' | 'refused';
  /** Why a call was refused: `policy` or `rate-limit`. */
  reason?: string;
  /** The request's params and the answer, as JSON, in bytes. */
  requestBytes: number;
  responseBytes: number;
  arguments?: unknown;
}

/** Whether audit lines are being written: `failing` from a failed write (or reopen) until one succeeds. */
export type AuditHealth =
  | { state: 'ok' }
  | {
      state: 'failing';
      /** The error's code (`ENOSPC`, `EACCES`, `ENOENT` …), else its name. */
      code: string;
      /** What failed: a write of lines (they are lost), or the reopen (the old file is kept). */
      during: 'write' | 'reopen';
      /** When the episode began (ISO time). */
      since: string;
    };

/** Where audit lines go. */
export interface AuditSink {
  /**
   * One or more whole lines (`AuditRecord`s as JSON, each ending in a newline): those of
   * the calls that finished together, written together.
   */
  write(lines: string): void;
  /** Opens the file again (after log rotation moved it); a no-op for other sinks. */
  reopen(): void;
  close(): void;
  /** Whether lines are being written; `ok` when absent. */
  health?(): AuditHealth;
}

export interface AuditFileOptions {
  /**
   * Called once per episode of failure (the first failed write or reopen after lines were
   * written), with the error; not again until a write has succeeded.
   */
  onerror?: (error: NodeJS.ErrnoException, during: 'write' | 'reopen') => void;
  /** Called when a write succeeds again after an episode of failed writes. */
  onrecover?: () => void;
}

const codeOf = (error: unknown) =>
  String((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.name ?? 'Error');

/**
 * Appends audit lines to a file, created mode 0600 (a regular file that exists is set to
 * 0600; a device or pipe is left as it is). `reopen` (SIGHUP) opens the path afresh, so that
 * a rotated file is let go. Each `write` is one `write(2)`: `AccessControl` gives it the
 * lines of the calls that finished together, before any of their answers is sent. A failed write loses its lines, is reported
 * once per episode (`onerror`) and shows in `health()`; the calls go on unless the access
 * config says `audit.required`.
 */
export class AuditFile implements AuditSink {
  private fd: number;
  private failure: Extract<AuditHealth, { state: 'failing' }> | undefined;

  constructor(
    readonly path: string,
    private readonly options: AuditFileOptions = {},
  ) {
    this.fd = AuditFile.open(path);
  }

  private static open(path: string): number {
    const fd = openSync(path, 'a', 0o600);
    try {
      if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  write(lines: string): void {
    if (lines === '' || this.fd < 0) return;
    try {
      writeSync(this.fd, lines);
    } catch (error) {
      this.fail(error, 'write');
      return;
    }
    if (this.failure?.during === 'write') {
      this.failure = undefined;
      this.options.onrecover?.();
    }
  }

  private fail(error: unknown, during: 'write' | 'reopen'): void {
    if (this.failure !== undefined) return;
    this.failure = {
      state: 'failing',
      code: codeOf(error),
      during,
      since: new Date().toISOString(),
    };
    this.options.onerror?.(error as NodeJS.ErrnoException, during);
  }

  health(): AuditHealth {
    return this.failure ?? { state: 'ok' };
  }

  reopen(): void {
    // The new file first: a path that cannot be opened now keeps the old one writing.
    let next: number;
    try {
      next = AuditFile.open(this.path);
    } catch (error) {
      this.fail(error, 'reopen');
      throw error;
    }
    const old = this.fd;
    this.fd = next;
    closeSync(old);
    if (this.failure !== undefined) {
      this.failure = undefined;
      this.options.onrecover?.();
    }
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

/** Audit lines to a stream (stdout), one `write` per batch of lines. */
export class AuditStream implements AuditSink {
  constructor(private readonly stream: { write(text: string): unknown }) {}
  write(lines: string): void {
    if (lines !== '') this.stream.write(lines);
  }
  reopen(): void {}
  close(): void {}
}
