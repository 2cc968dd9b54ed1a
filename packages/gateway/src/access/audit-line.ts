import type { AuditRecord } from './audit.js';

/** `,"key":"value"` with the value as a JSON string; nothing for a value that is absent. */
function stringField(key: string, value: string | undefined): string {
  return value === undefined ? '' : `,"${key}":${JSON.stringify(value)}`;
}

/** What an audit line holds before the answer's size is known (`AuditRecord` less that). */
export type AuditHead = Omit<AuditRecord, 'responseBytes' | 'arguments'>;

/**
 * The start of an audit line, up to where `responseBytes` goes: the record's fields in its
 * order, written as JSON text directly (no object is made and stringified). Each string is
 * escaped by `JSON.stringify`, so that a subject, tool or server with quotes, backslashes,
 * control characters or any Unicode still makes one valid JSON line; an absent field is
 * left out, as `JSON.stringify` of the record would.
 */
export function auditHead(r: AuditHead): string {
  return `{"time":${JSON.stringify(r.time)}${stringField('subject', r.subject)}${stringField('clientId', r.clientId)}${stringField('session', r.session)},"endpoint":${JSON.stringify(r.endpoint)},"server":${JSON.stringify(r.server)},"method":${JSON.stringify(r.method)},"tool":${JSON.stringify(r.tool)},"durationMs":${JSON.stringify(r.durationMs)},"outcome":"${r.outcome}"${stringField('reason', r.reason)},"requestBytes":${r.requestBytes}`;
}

/** The end of an audit line after `responseBytes`: the arguments when asked for, `}` and the newline. */
export function auditTail(args: unknown): string {
  if (args === undefined) return '}\n';
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    // Arguments that cannot be written as JSON are left out; the line itself is still written.
    text = undefined;
  }
  return text === undefined ? '}\n' : `,"arguments":${text}}\n`;
}

/** A whole audit line (`auditHead`, the answer's size, `auditTail`). */
export function auditLine(head: string, responseBytes: number, tail: string): string {
  return `${head},"responseBytes":${responseBytes}${tail}`;
}
