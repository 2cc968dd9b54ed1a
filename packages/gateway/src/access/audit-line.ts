import type { AuditRecord } from './audit.js';

/** Text that is its own JSON string body: printable ASCII without `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as JSON text: quoted as it is when nothing in it needs escaping (the usual
 * names, ids and times: one call of `JSON.stringify` per field costs more than the check),
 * else `JSON.stringify`'s escaping.
 */
function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** `,"key":"value"` with the value as a JSON string; nothing for a value that is absent. */
function stringField(key: string, value: string | undefined): string {
  return value === undefined ? '' : `,"${key}":${jsonString(value)}`;
}

/** What an audit line holds before the answer's size is known (`AuditRecord` less that). */
export type AuditHead = Omit<AuditRecord, 'responseBytes' | 'arguments'>;

/** Who called what, the part of a line that repeats while a caller calls the same target. */
export type AuditWho = Pick<
  AuditRecord,
  'subject' | 'clientId' | 'session' | 'endpoint' | 'server' | 'method' | 'tool'
>;

/**
 * The fields from `subject` to `tool` as JSON text, each with its leading comma. Each string
 * is escaped as `JSON.stringify` escapes it (or, needing nothing, quoted as it is), so that a
 * subject, tool or server with quotes, backslashes, control characters or any Unicode still
 * makes one valid JSON line; an absent field is left out, as `JSON.stringify` of the record
 * would.
 */
export function auditWho(r: AuditWho): string {
  return `${stringField('subject', r.subject)}${stringField('clientId', r.clientId)}${stringField('session', r.session)},"endpoint":${jsonString(r.endpoint)},"server":${jsonString(r.server)},"method":${jsonString(r.method)},"tool":${jsonString(r.tool)}`;
}

/** `{"time":…`: the opening of a line. */
export function auditTime(time: string): string {
  return `{"time":${jsonString(time)}`;
}

/**
 * The start of an audit line, up to where `responseBytes` goes: the record's fields in its
 * order, written as JSON text directly (no object is made and stringified). `timeText` and
 * `who` are `auditTime`'s and `auditWho`'s text (kept by the caller while they repeat).
 */
export function auditHeadOf(
  timeText: string,
  who: string,
  r: Pick<AuditRecord, 'durationMs' | 'outcome' | 'reason' | 'requestBytes'>,
): string {
  return `${timeText}${who},"durationMs":${r.durationMs},"outcome":"${r.outcome}"${stringField('reason', r.reason)},"requestBytes":${r.requestBytes}`;
}

/** `auditHeadOf` from a whole record. */
export function auditHead(r: AuditHead): string {
  return auditHeadOf(auditTime(r.time), auditWho(r), r);
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
