import { isRecord } from '@mcpkit/jsonrpc/internal';
import { ClientMethod, type ReadResourceResult } from '@mcpkit/protocol';
import type { Connection } from '../connection.js';
import { InvalidResultError } from '../errors.js';
import { type CallOptions, clientDefaults } from '../options.js';
import type { RequestPipeline } from '../request-pipeline.js';
import { type VerifiedContent, verifiedContent } from './content.js';
import { checkSkillEntry, isWithinSkill, type SkillEntry, skillsExtensionId } from './entry.js';
import { SkillError, SkillErrorCode, SkillVerificationError } from './errors.js';
import { frontmatterDifferences, parseSkillMd } from './frontmatter.js';

/** The client's limits on what a skill may make it read (SEP-2640's server-side caps). */
export const skillDefaults = Object.freeze({
  /** One file: refused before it is requested when declared larger, and while measuring it. */
  maxFileBytes: 16 * 1024 * 1024,
  /** A whole skill, summed over its listed files. */
  maxSkillBytes: 16 * 1024 * 1024,
  /** Files listed for one skill, SKILL.md included. */
  maxResources: 512,
});

/** A loaded skill: its SKILL.md, verified against the listing and split at its front matter. */
export interface Skill {
  uri: string;
  name: string;
  /** The listing entry it was verified against (where its other files are declared). */
  entry: SkillEntry;
  /** The front matter parsed from the file (equal to the listing's, field by field). */
  frontmatter: Record<string, unknown>;
  /** The Markdown after the front matter. */
  body: string;
  /** The whole SKILL.md. */
  text: string;
  /** False only for a `dynamic` skill, whose listing declares no digest to check against. */
  verified: boolean;
}

/** One file of a skill, verified against its digest and size. */
export interface SkillFile {
  uri: string;
  /** The skill's URI (its SKILL.md). */
  skill: string;
  bytes: Uint8Array;
  /** The content as the server sent it when it sent text; else decode `bytes` yourself. */
  text: string | undefined;
  mimeType: string | undefined;
  /** False only for a file of a `dynamic` skill. */
  verified: boolean;
}

/**
 * The skills extension (SEP-2640) on the client: enumerating skills reads only their
 * listing; a skill's files are fetched one by one when asked for, each verified against the
 * listing's size and SHA-256 digest (and the SKILL.md's front matter against the listing's)
 * before it is returned.
 */
export class Skills {
  constructor(
    private readonly conn: Connection,
    private readonly pipeline: RequestPipeline,
    private readonly report: (error: Error) => void,
  ) {}

  /** The server declared the extension (and the resources its files are read through). */
  get supported(): boolean {
    const caps = this.conn.serverCapabilities;
    return isRecord(caps?.extensions?.[skillsExtensionId]) && caps?.resources !== undefined;
  }

  /** Every page of `skills/list`; entries that break the extension's rules go to `report`. */
  async list(options?: CallOptions): Promise<SkillEntry[]> {
    this.conn.connectedPeer();
    if (!this.supported) return [];
    const method = 'skills/list';
    const maxPages = this.conn.options.maxPages ?? clientDefaults.maxPages;
    const entries: SkillEntry[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let index = 0;
    for (let page = 0; page < maxPages; page++) {
      const raw = await this.pipeline.request(method, cursor ? { cursor } : {}, options);
      if (!isRecord(raw) || !Array.isArray(raw.skills))
        throw this.invalid(method, '"skills" is not an array');
      for (const item of raw.skills) {
        try {
          entries.push(checkSkillEntry(this.conn.label, item, `skills[${index}]`));
        } catch (error) {
          this.report(error as Error);
        }
        index++;
      }
      const next = raw.nextCursor;
      if (next === undefined || next === '') return entries;
      if (typeof next !== 'string') throw this.invalid(method, '"nextCursor" is not a string');
      if (seen.has(next)) throw this.invalid(method, `cursor ${JSON.stringify(next)} came twice`);
      seen.add(next);
      cursor = next;
    }
    throw this.invalid(method, `more than ${maxPages} pages; raise maxPages to fetch them all`);
  }

  /** `skills/get`: the entry of one skill, by its URI. */
  async get(uri: string, options?: CallOptions): Promise<SkillEntry> {
    this.requireSupport(uri);
    const raw = await this.pipeline.request('skills/get', { uri }, options);
    if (!isRecord(raw)) throw this.invalid('skills/get', 'the result is not an object');
    const entry = checkSkillEntry(this.conn.label, raw.skill, 'skill');
    if (entry.uri !== uri)
      throw this.invalid('skills/get', `asked for ${uri}, answered with ${entry.uri}`);
    return entry;
  }

  /**
   * Loads a skill: fetches its SKILL.md and verifies size, digest and front matter against
   * the listing before returning it. `skill` is an entry, a URI, or a name (looked up in
   * `skills/list`; a name two skills share must be given as an entry or URI instead).
   */
  async read(skill: string | SkillEntry, options?: CallOptions): Promise<Skill> {
    return (await this.load(await this.resolve(skill, options), options)).skill;
  }

  /** The SKILL.md read, verified, and parsed: the skill and the content it came from. */
  private async load(
    entry: SkillEntry,
    options: CallOptions | undefined,
  ): Promise<{ skill: Skill; content: VerifiedContent }> {
    const content = await this.fetch(entry, entry.uri, options);
    const what = `skill "${entry.name}" (${entry.uri})`;
    const ids = { skill: entry.uri };
    let text = content.text;
    if (text === undefined) {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(content.bytes);
      } catch (cause) {
        throw new SkillError(
          SkillErrorCode.InvalidContent,
          `${this.conn.label}: ${what}: SKILL.md is not UTF-8 text; the skill cannot be used, report it to the server's maintainers`,
          ids,
          { cause },
        );
      }
    }
    const parsed = await parseSkillMd(text);
    if (typeof parsed === 'string')
      throw new SkillVerificationError(
        SkillErrorCode.FrontmatterInvalid,
        `${this.conn.label}: ${what}: SKILL.md is refused: ${parsed}; the skill was not loaded, report it to the server's maintainers`,
        ids,
        entry.frontmatter,
        undefined,
      );
    const differs = frontmatterDifferences(parsed.frontmatter, entry.frontmatter);
    if (differs.length > 0) {
      const pick = (from: Record<string, unknown>) =>
        Object.fromEntries(differs.map((k) => [k, from[k]]));
      throw new SkillVerificationError(
        SkillErrorCode.FrontmatterMismatch,
        `${this.conn.label}: ${what}: the front matter of SKILL.md differs from the listing's in ${differs.map((k) => `"${k}"`).join(', ')} (file ${JSON.stringify(pick(parsed.frontmatter))}, listing ${JSON.stringify(pick(entry.frontmatter))}); the skill was not loaded. List the skills again, and report it to the server's maintainers if it persists`,
        ids,
        pick(entry.frontmatter),
        pick(parsed.frontmatter),
      );
    }
    const skill = {
      uri: entry.uri,
      name: entry.name,
      entry,
      frontmatter: parsed.frontmatter,
      body: parsed.body,
      text,
      verified: entry.resources !== 'dynamic',
    };
    return { skill, content };
  }

  /** One file of a skill (listed in its entry, or under its directory when `dynamic`). */
  async readFile(
    skill: SkillEntry | Skill,
    uri: string,
    options?: CallOptions,
  ): Promise<SkillFile> {
    const entry = checkSkillEntry(this.conn.label, 'entry' in skill ? skill.entry : skill, 'entry');
    // The SKILL.md is only ever handed out with its front matter checked too.
    const content =
      uri === entry.uri
        ? (await this.load(entry, options)).content
        : await this.fetch(entry, uri, options);
    return {
      uri,
      skill: entry.uri,
      ...content,
      verified: entry.resources !== 'dynamic',
    };
  }

  /** Reads one file of the skill through `resources/read`, verified before it is returned. */
  private async fetch(
    entry: SkillEntry,
    uri: string,
    options: CallOptions | undefined,
  ): Promise<VerifiedContent> {
    const label = this.conn.label;
    const what =
      uri === entry.uri
        ? `skill "${entry.name}" (${entry.uri})`
        : `file ${uri} of skill "${entry.name}"`;
    const ids = { skill: entry.uri, ...(uri === entry.uri ? {} : { file: uri }) };
    const limits = { ...skillDefaults, ...this.conn.options.skills };
    const declared =
      entry.resources === 'dynamic' ? undefined : entry.resources.find((r) => r.uri === uri);
    if (!isWithinSkill(entry, uri) || (entry.resources !== 'dynamic' && !declared))
      throw new SkillError(
        SkillErrorCode.NotListed,
        `${label}: ${what}: not a file the skill's listing declares, so it cannot be verified; read only the files in entry.resources`,
        ids,
      );
    if (entry.resources !== 'dynamic') {
      const total = entry.resources.reduce((sum, r) => sum + r.size, 0);
      const why =
        entry.resources.length > limits.maxResources
          ? `lists ${entry.resources.length} files, more than maxResources ${limits.maxResources}`
          : total > limits.maxSkillBytes
            ? `declares ${total} bytes in all, more than maxSkillBytes ${limits.maxSkillBytes}`
            : declared!.size > limits.maxFileBytes
              ? `declares ${declared!.size} bytes, more than maxFileBytes ${limits.maxFileBytes}`
              : undefined;
      if (why)
        throw new SkillError(
          SkillErrorCode.TooLarge,
          `${label}: ${what}: the skill ${why}; refused before reading. Raise the client's "skills" limits to accept it`,
          ids,
        );
    }
    this.requireSupport(entry.uri);
    const result = await this.pipeline.requestChecked<ReadResourceResult>(
      ClientMethod.ReadResource,
      { uri },
      'ReadResourceResultSchema',
      undefined,
      options,
    );
    return verifiedContent(
      { label, skill: entry.uri, file: uri, what },
      result,
      declared,
      limits.maxFileBytes,
    );
  }

  private async resolve(skill: string | SkillEntry, options?: CallOptions): Promise<SkillEntry> {
    if (typeof skill !== 'string') return checkSkillEntry(this.conn.label, skill, 'entry');
    if (skill.includes('://')) return this.get(skill, options);
    this.requireSupport(skill);
    const found = (await this.list(options)).filter((e) => e.name === skill);
    if (found.length === 1) return found[0]!;
    throw new SkillError(
      found.length === 0 ? SkillErrorCode.NotFound : SkillErrorCode.Ambiguous,
      found.length === 0
        ? `${this.conn.label}: no skill named "${skill}" in skills/list; list the skills to see which it serves`
        : `${this.conn.label}: ${found.length} skills are named "${skill}" (${found.map((e) => e.uri).join(', ')}); pass the entry or its URI instead of the name`,
      { skill },
    );
  }

  private requireSupport(skill: string): void {
    this.conn.connectedPeer();
    if (this.supported) return;
    throw new SkillError(
      SkillErrorCode.NotSupported,
      `${this.conn.label}: the server does not declare the ${skillsExtensionId} extension (with the resources capability), so it serves no skills; ask for skills only from servers that list the extension in capabilities.extensions`,
      { skill },
    );
  }

  private invalid(method: string, detail: string): InvalidResultError {
    return new InvalidResultError(this.conn.label, method, detail, undefined);
  }
}
