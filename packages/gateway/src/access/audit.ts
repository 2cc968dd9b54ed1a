import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';

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

/** Where audit lines go. */
export interface AuditSink {
  write(record: AuditRecord): void;
  /** Opens the file again (after log rotation moved it); a no-op for other sinks. */
  reopen(): void;
  close(): void;
}

/**
 * Appends each record as one JSON line to a file, created mode 0600 (and set to 0600 when
 * it exists). `reopen` (SIGHUP) opens the path afresh, so that a rotated file is let go.
 * Writes are synchronous: a line is in the file when the call is answered.
 */
export class AuditFile implements AuditSink {
  private fd: number;

  constructor(readonly path: string) {
    this.fd = AuditFile.open(path);
  }

  private static open(path: string): number {
    const fd = openSync(path, 'a', 0o600);
    try {
      fchmodSync(fd, 0o600);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  write(record: AuditRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  reopen(): void {
    // The new file first: a path that cannot be opened now keeps the old one writing.
    const next = AuditFile.open(this.path);
    const old = this.fd;
    this.fd = next;
    closeSync(old);
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

/** Each record as one JSON line to a stream (stdout). */
export class AuditStream implements AuditSink {
  constructor(private readonly stream: { write(text: string): unknown }) {}
  write(record: AuditRecord): void {
    this.stream.write(`${JSON.stringify(record)}\n`);
  }
  reopen(): void {}
  close(): void {}
}
