/** A problem found in a config source, located precisely enough to fix it. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** The file (or a label such as `--config argument`) the problem is in. */
  source: string;
  /** JSON path, e.g. `mcpServers.github.url`; empty for the whole file. */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** `.mcp.json:3:7: mcpServers.github.url: expected a URL` */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined ? d.source : `${d.source}:${d.line}:${d.column ?? 1}`;
  return d.path ? `${where}: ${d.path}: ${d.message}` : `${where}: ${d.message}`;
}

/** Joins path segments the way people write them: `a.b[0].c`, quoting odd keys. */
export function jsonPath(segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
