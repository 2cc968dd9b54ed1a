import { isRecord } from '@mcpkit/jsonrpc/internal';
import { SkillError, SkillErrorCode } from './errors.js';

/** The extension's identifier under `capabilities.extensions`. */
export const skillsExtensionId = 'io.modelcontextprotocol/skills';

/** One file of a skill as its listing declares it: what `readSkillFile` verifies against. */
export interface SkillResource {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits: the SHA-256 of the file's raw bytes. */
  digest: string;
  /** The length in bytes of the file's raw content (the bytes the digest covers). */
  size: number;
}

/** The SKILL.md front matter as the listing renders it: `name` and `description` at least. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** A skill as `skills/list` and `skills/get` describe it, checked against SEP-2640. */
export interface SkillEntry {
  /** The full URI of the skill's SKILL.md, e.g. `skill://pdf-processing/SKILL.md`. */
  uri: string;
  /** The final segment of the skill path, equal to `frontmatter.name`. */
  name: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill with its digest and size, or `dynamic` (no manifest). */
  resources: SkillResource[] | 'dynamic';
}

const SKILL_MD = 'SKILL.md';
const DIGEST = /^sha256:[0-9a-f]{64}$/;
// The Agent Skills naming rules: 1-64 of [a-z0-9-], no leading, trailing or double hyphen.
const NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The directory of a skill (its URI without `/SKILL.md`), and its name (the last segment). */
export function skillPath(uri: string): { dir: string; name: string } | undefined {
  const scheme = uri.indexOf('://');
  if (scheme <= 0 || !uri.endsWith(`/${SKILL_MD}`)) return undefined;
  const dir = uri.slice(0, -SKILL_MD.length - 1);
  const segments = dir.slice(scheme + 3).split('/');
  const name = segments[segments.length - 1];
  if (!name || segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return { dir, name };
}

/** A file URI inside the skill's directory, with no `.`/`..` segment to climb out of it. */
export function isWithinSkill(entry: Pick<SkillEntry, 'uri'>, uri: string): boolean {
  if (uri === entry.uri) return true;
  const path = skillPath(entry.uri);
  if (!path || !uri.startsWith(`${path.dir}/`)) return false;
  const rest = uri
    .slice(path.dir.length + 1)
    .split(/[?#]/)[0]!
    .split('/');
  return rest.every((s) => s !== '' && s !== '.' && s !== '..' && !/%2e%2e|%2f/i.test(s));
}

/**
 * Checks one entry of `skills/list` (or the `skill` of `skills/get`) against the extension's
 * MUSTs and returns it typed; a broken entry is a `SkillError` saying which rule it breaks.
 */
export function checkSkillEntry(label: string, raw: unknown, at: string): SkillEntry {
  const where = isRecord(raw) && typeof raw.uri === 'string' ? raw.uri : at;
  const fail = (why: string): never => {
    throw new SkillError(
      SkillErrorCode.InvalidEntry,
      `${label}: skill entry ${where} left out: ${why}; the server's skills listing breaks SEP-2640, report it to the server's maintainers`,
      { skill: where },
    );
  };
  if (!isRecord(raw)) return fail('it is not an object');
  const { uri, frontmatter, resources } = raw;
  if (typeof uri !== 'string' || uri.length === 0) return fail('"uri" is missing');
  const path = skillPath(uri);
  if (!path) return fail(`"uri" must name the skill's ${SKILL_MD} (…/<name>/${SKILL_MD})`);
  if (!isRecord(frontmatter)) return fail('"frontmatter" is missing or not an object');
  if (typeof frontmatter.name !== 'string' || frontmatter.name.length === 0)
    return fail('"frontmatter.name" is missing');
  if (typeof frontmatter.description !== 'string' || frontmatter.description.length === 0)
    return fail('"frontmatter.description" is missing');
  if (frontmatter.name !== path.name)
    return fail(
      `the URI's last segment "${path.name}" is not frontmatter.name "${frontmatter.name}"`,
    );
  if (!NAME.test(path.name))
    return fail(`the name "${path.name}" breaks the naming rules (1-64 of a-z, 0-9, "-")`);
  const entry = { uri, name: path.name, frontmatter: frontmatter as SkillFrontmatter };
  if (resources === 'dynamic') return { ...entry, resources };
  if (!Array.isArray(resources)) return fail('"resources" must be an array or "dynamic"');
  const seen = new Set<string>();
  const files: SkillResource[] = [];
  for (const r of resources as unknown[]) {
    if (!isRecord(r) || typeof r.uri !== 'string') return fail('a resource has no "uri"');
    if (seen.has(r.uri)) return fail(`resource ${r.uri} is listed twice`);
    seen.add(r.uri);
    if (!isWithinSkill(entry, r.uri)) return fail(`resource ${r.uri} lies outside ${path.dir}/`);
    if (typeof r.digest !== 'string' || !DIGEST.test(r.digest))
      return fail(`resource ${r.uri} has no "digest" of the form sha256:<64 lowercase hex>`);
    if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0)
      return fail(`resource ${r.uri} has no "size" (a non-negative integer)`);
    files.push({ uri: r.uri, digest: r.digest, size: r.size });
  }
  if (!seen.has(uri)) return fail(`"resources" has no entry for the ${SKILL_MD} itself`);
  return { ...entry, resources: files };
}
