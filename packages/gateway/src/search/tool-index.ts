import MiniSearch, { type SearchOptions } from 'minisearch';

/** One tool as the index sees it: its served name and what the client would read of it. */
export interface IndexedTool {
  /** The name the gateway serves it as. */
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

interface Doc {
  id: number;
  name: string;
  title: string;
  description: string;
  params: string;
}

/**
 * The most characters of one field indexed: a backend's description of a megabyte costs the
 * index no more than a long one (what the client is given is not cut).
 */
const MAX_FIELD_CHARS = 8192;

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  (
    'a an and any are as at be by can do does for from get give how i in into is it its me my ' +
    'of on or our please show some that the their them this to use using want we what which ' +
    'with you your'
  ).split(' '),
);

/**
 * Words of a name or a text: split at every run of characters that are neither letters nor
 * digits (`_`, `-`, `/`, `.`, spaces) and at camelCase and letter–digit boundaries, so
 * `browser_take_screenshot`, `API-get-self` and `getConsoleMessage` give their words.
 */
export function words(text: string): string[] {
  return text
    .replace(
      /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu,
      ' ',
    )
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * A term as stored and as asked: lower case, plurals folded (`issues` → `issue`, `entries` →
 * `entry`), stop words dropped. Only plural endings are folded: prefix matching in the
 * query covers the other endings (`screenshot` finds `screenshots`, `comment` `commenting`).
 */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP_WORDS.has(t)) return null;
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') && !t.endsWith('us'))
    return t.slice(0, -1);
  return t;
}

/** The argument names and descriptions of an input schema (its top-level properties). */
function paramsText(schema: Record<string, unknown> | undefined): string {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  const parts: string[] = [];
  let length = 0;
  for (const [name, value] of Object.entries(properties as Record<string, unknown>)) {
    if (length > MAX_FIELD_CHARS) break;
    length += name.length;
    parts.push(name);
    const description = (value as { description?: unknown } | null)?.description;
    if (typeof description === 'string') {
      length += description.length;
      parts.push(description);
    }
  }
  return parts.join('\n');
}

const SEARCH: SearchOptions = {
  // A tool's name says most about it, then its title, its description, its arguments.
  boost: { name: 3, title: 2, description: 1, params: 0.6 },
  // A word typed is often the start of the tool's (`screenshot` → `screenshots`); a typo
  // of one letter in five is forgiven in longer words only.
  prefix: (term) => term.length >= 3,
  fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
  combineWith: 'OR',
};

/**
 * A full-text index of tools (MiniSearch: BM25+ over the words of each tool's name, title,
 * description and argument names and descriptions). Built on first use after each
 * `replace`, so a burst of list changes costs one build.
 */
export class ToolIndex {
  private tools: readonly IndexedTool[] = [];
  private index: MiniSearch<Doc> | undefined;

  /** The tools searched from now on. */
  replace(tools: readonly IndexedTool[]): void {
    this.tools = tools;
    this.index = undefined;
  }

  get size(): number {
    return this.tools.length;
  }

  /** The best `limit` tools for `query`, best first. */
  search(query: string, limit: number): IndexedTool[] {
    if (!this.index) this.index = this.build();
    return this.index
      .search(query, SEARCH)
      .slice(0, limit)
      .map((hit) => this.tools[hit.id as number]!);
  }

  private build(): MiniSearch<Doc> {
    const index = new MiniSearch<Doc>({
      fields: ['name', 'title', 'description', 'params'],
      tokenize: words,
      processTerm,
    });
    index.addAll(
      this.tools.map((tool, id) => ({
        id,
        name: tool.name.slice(0, MAX_FIELD_CHARS),
        title: (tool.title ?? '').slice(0, MAX_FIELD_CHARS),
        description: (tool.description ?? '').slice(0, MAX_FIELD_CHARS),
        params: paramsText(tool.inputSchema).slice(0, MAX_FIELD_CHARS),
      })),
    );
    return index;
  }
}
