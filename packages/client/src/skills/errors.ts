import { McpkitError } from '@mcpkit/jsonrpc';

/** String codes of the skills extension's errors. Stable: match on these, not on messages. */
export const SkillErrorCode = {
  /** The server did not declare `io.modelcontextprotocol/skills`. */
  NotSupported: 'MCPKIT_SKILL_NOT_SUPPORTED',
  /** A skill entry breaks the extension's rules (shape, URI, name, digest format, …). */
  InvalidEntry: 'MCPKIT_SKILL_INVALID_ENTRY',
  /** No skill by that name, or more than one. */
  NotFound: 'MCPKIT_SKILL_NOT_FOUND',
  Ambiguous: 'MCPKIT_SKILL_AMBIGUOUS',
  /** A file the skill's manifest does not list (it cannot be verified). */
  NotListed: 'MCPKIT_SKILL_FILE_NOT_LISTED',
  /** Declared or served content past the client's limits. */
  TooLarge: 'MCPKIT_SKILL_TOO_LARGE',
  /** `resources/read` answered without usable content for the file. */
  InvalidContent: 'MCPKIT_SKILL_INVALID_CONTENT',
  /** Verification failures: the content was discarded. */
  SizeMismatch: 'MCPKIT_SKILL_SIZE_MISMATCH',
  DigestMismatch: 'MCPKIT_SKILL_DIGEST_MISMATCH',
  FrontmatterInvalid: 'MCPKIT_SKILL_FRONTMATTER_INVALID',
  FrontmatterMismatch: 'MCPKIT_SKILL_FRONTMATTER_MISMATCH',
} as const;
export type SkillErrorCode = (typeof SkillErrorCode)[keyof typeof SkillErrorCode];

/** Something about a skill (SEP-2640) the client refused. `skill` is its SKILL.md URI. */
export class SkillError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.SkillError';
  override readonly name: string = 'SkillError';
  /** The skill's URI (its SKILL.md), when one is concerned. */
  readonly skill: string | undefined;
  /** The file concerned, when it is not the SKILL.md itself. */
  readonly file: string | undefined;
  constructor(
    code: SkillErrorCode,
    message: string,
    where: { skill?: string | undefined; file?: string | undefined } = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.skill = where.skill;
    this.file = where.file;
  }
}

/**
 * A skill file failed verification against its listing entry: its size, its digest, or its
 * front matter. The content was discarded and must not be used.
 */
export class SkillVerificationError extends SkillError {
  static override readonly brand: string = '@mcpkit/client.SkillVerificationError';
  override readonly name: string = 'SkillVerificationError';
  /** What the listing declared (size in bytes, `sha256:…`, or the front-matter field). */
  readonly expected: unknown;
  /** What the content read had. */
  readonly actual: unknown;
  constructor(
    code: SkillErrorCode,
    message: string,
    where: { skill?: string | undefined; file?: string | undefined },
    expected: unknown,
    actual: unknown,
    options?: { cause?: unknown },
  ) {
    super(code, message, where, options);
    this.expected = expected;
    this.actual = actual;
  }
}
