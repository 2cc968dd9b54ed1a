/**
 * Matching of RFC 6570 templates as resource templates use them: `{name}` (one path
 * segment, no `/`), `{+name}` (reserved expansion, may span `/`) and `{?a,b}` (query).
 * Enough for resource routing; expansion is not needed on the server side.
 */
export class UriTemplate {
  readonly template: string;
  private readonly pattern: RegExp;
  private readonly names: string[] = [];
  private readonly query: string[] = [];

  constructor(template: string) {
    this.template = template;
    let source = '';
    let last = 0;
    for (const m of template.matchAll(/\{([+#?&]?)([^}]+)\}/g)) {
      source += escapeRegExp(template.slice(last, m.index));
      last = m.index + m[0].length;
      const [op, list] = [m[1], m[2]!.split(',').map((s) => s.trim())];
      if (op === '?' || op === '&') {
        this.query.push(...list);
        source += '(?:[?&].*)?';
        continue;
      }
      for (const [i, name] of list.entries()) {
        this.names.push(name);
        if (i > 0) source += ',';
        source += op === '+' || op === '#' ? '(.*?)' : '([^/?#,]*)';
      }
    }
    source += escapeRegExp(template.slice(last));
    this.pattern = new RegExp(`^${source}$`);
  }

  /** The variables of `uri`, or undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined {
    const m = this.pattern.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    this.names.forEach((name, i) => {
      vars[name] = safeDecode(m[i + 1] ?? '');
    });
    if (this.query.length > 0) {
      const q = uri.indexOf('?');
      const params = new URLSearchParams(q === -1 ? '' : uri.slice(q + 1));
      for (const name of this.query) {
        const value = params.get(name);
        if (value !== null) vars[name] = value;
      }
    }
    return vars;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
