import { isRecord } from '@mcpkit/jsonrpc/internal';
import type { ReadResourceResult } from '@mcpkit/protocol';
import type { SkillResource } from './entry.js';
import { SkillError, SkillErrorCode, SkillVerificationError } from './errors.js';

/** A skill file's content, verified against its listing entry when it has one. */
export interface VerifiedContent {
  bytes: Uint8Array;
  /** The content as text when the server sent it as text. */
  text: string | undefined;
  mimeType: string | undefined;
}

interface Where {
  label: string;
  skill: string;
  file: string;
  /** `skill "name" (uri)` or `file … of skill "name"`, for messages. */
  what: string;
}

/**
 * The UTF-8 length of `text`, counting no further than `limit + 1`: a text past the limit
 * is refused as soon as the count passes it, without encoding or hashing it.
 */
export function utf8Length(text: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < text.length && n <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // includes a lone surrogate, which UTF-8 encoding turns into U+FFFD
  }
  return n;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The decoded length of strict base64, from its length alone (no decoding). */
function base64Length(blob: string): number | undefined {
  if (blob.length % 4 !== 0 || !BASE64.test(blob)) return undefined;
  const pad = blob.endsWith('==') ? 2 : blob.endsWith('=') ? 1 : 0;
  return (blob.length / 4) * 3 - pad;
}

function decodeBase64(blob: string): Uint8Array {
  const binary = atob(blob);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const b of hash) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

/**
 * Takes the file's content out of a `resources/read` result and verifies it: its byte length
 * first (measured before any decoding or hashing, and refused once past the declared size or
 * `maxBytes`), then its SHA-256 digest. Unverified content never leaves this function.
 */
export async function verifiedContent(
  where: Where,
  result: ReadResourceResult,
  declared: SkillResource | undefined,
  maxBytes: number,
): Promise<VerifiedContent> {
  const { label, skill, file, what } = where;
  const ids = { skill, ...(file === skill ? {} : { file }) };
  const invalid = (why: string): never => {
    throw new SkillError(
      SkillErrorCode.InvalidContent,
      `${label}: ${what}: resources/read ${why}; the skill cannot be used, report it to the server's maintainers`,
      ids,
    );
  };
  // Checked here even when the client's result validation is off: this is the trust boundary.
  const contents: unknown = isRecord(result) ? result.contents : undefined;
  if (!Array.isArray(contents)) return invalid('returned no "contents" array');
  const matching = contents.filter((c) => isRecord(c) && c.uri === file);
  if (matching.length !== 1)
    return invalid(
      matching.length === 0 ? `returned no content for ${file}` : `returned ${file} twice`,
    );
  const content = matching[0] as Record<string, unknown>;
  const mimeType = typeof content.mimeType === 'string' ? content.mimeType : undefined;
  const text = typeof content.text === 'string' ? content.text : undefined;
  const blob = typeof content.blob === 'string' ? content.blob : undefined;
  if ((text === undefined) === (blob === undefined))
    return invalid('returned content with neither or both of "text" and "blob"');

  const tooLarge = (): never => {
    throw new SkillError(
      SkillErrorCode.TooLarge,
      `${label}: ${what}: more than ${maxBytes} bytes, past the client's limit; refused unread. Raise the skills option maxFileBytes to accept larger skill files`,
      ids,
    );
  };
  if (declared && declared.size > maxBytes) return tooLarge();
  const bound = declared ? declared.size : maxBytes;
  let size: number;
  if (text !== undefined) size = utf8Length(text, bound);
  else {
    const length = base64Length(blob!);
    if (length === undefined) return invalid('returned a "blob" that is not valid base64');
    size = length;
  }
  if (declared && size !== declared.size) {
    const measured = size > bound ? `more than ${bound}` : String(size);
    throw new SkillVerificationError(
      SkillErrorCode.SizeMismatch,
      `${label}: ${what}: the listing declares ${declared.size} bytes, the server sent ${measured}; the content was discarded unused. The server's files and its listing disagree (changed or tampered): list the skills again, and report it to the server's maintainers if it persists`,
      ids,
      declared.size,
      size,
    );
  }
  if (size > maxBytes) return tooLarge();
  const bytes = text !== undefined ? new TextEncoder().encode(text) : decodeBase64(blob!);
  if (declared) {
    const digest = await sha256Digest(bytes);
    if (digest !== declared.digest)
      throw new SkillVerificationError(
        SkillErrorCode.DigestMismatch,
        `${label}: ${what}: the content hashes to ${digest}, the listing declares ${declared.digest}; the content was discarded unused. The server's files and its listing disagree (changed or tampered): list the skills again, and report it to the server's maintainers if it persists`,
        ids,
        declared.digest,
        digest,
      );
  }
  return { bytes, text, mimeType };
}
