import { isRecord } from '@mcpkit/jsonrpc/internal';

type Yaml = typeof import('yaml');
let yaml: Promise<Yaml> | undefined;
/** The YAML parser loads on the first skill read: a client that never reads one never pays. */
function loadYaml(): Promise<Yaml> {
  yaml ??= import('yaml');
  return yaml;
}

// A leading `---` line, the YAML, a closing `---` line (an optional BOM before it all).
const BLOCK = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** What a SKILL.md is made of: its front matter (parsed) and the Markdown after it. */
export interface ParsedSkillMd {
  frontmatter: Record<string, unknown>;
  body: string;
}

/**
 * Splits a SKILL.md into its YAML front matter and body. Returns a reason string when the
 * front matter is missing, is not valid YAML (1.2 core schema, unique keys, few aliases, no
 * warnings),
 * or is not a mapping with a `name` and a `description`.
 */
export async function parseSkillMd(text: string): Promise<ParsedSkillMd | string> {
  const match = BLOCK.exec(text);
  if (!match) return 'it does not begin with a "---" delimited YAML front matter block';
  const { parseDocument } = await loadYaml();
  let frontmatter: unknown;
  try {
    // The core schema gives plain JSON types (no timestamps, no custom tags). A warning (an
    // unknown tag, say) refuses the file like an error: nothing the listing could match.
    const doc = parseDocument(match[1] ?? '', {
      schema: 'core',
      uniqueKeys: true,
      prettyErrors: false,
      logLevel: 'silent',
    });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw problem;
    // Few aliases keep an alias bomb from growing the parse.
    frontmatter = doc.toJS({ maxAliasCount: 16 });
  } catch (error) {
    return `its front matter is not valid YAML (${(error as Error).message.split('\n')[0]})`;
  }
  if (!isRecord(frontmatter)) return 'its front matter is not a YAML mapping';
  for (const field of ['name', 'description']) {
    const value = frontmatter[field];
    if (typeof value !== 'string' || value.length === 0)
      return `its front matter has no "${field}"`;
  }
  return { frontmatter, body: text.slice(match[0].length) };
}

/**
 * The fields where the file's front matter and the listing's differ, compared field by field
 * as JSON values (an absent field and `null` count as the same: a JSON rendering may drop it).
 */
export function frontmatterDifferences(
  file: Record<string, unknown>,
  listed: Record<string, unknown>,
): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(file), ...Object.keys(listed)]))
    if (!sameJson(file[key] ?? null, listed[key] ?? null)) out.push(key);
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!sameJson(a[k] ?? null, b[k] ?? null)) return false;
    return true;
  }
  return false;
}
