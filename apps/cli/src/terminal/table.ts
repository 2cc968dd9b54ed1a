import { neutralize } from './neutralize.js';

/**
 * Pads names into a column; descriptions are cut to one line. Cells are mostly a server's
 * words (tool names, descriptions): their control characters are shown escaped, so none
 * can move the cursor, clear the screen or break the columns.
 */
export function table(rows: Array<[string, string]>, indent = '  ', maxWidth = 100): string {
  const cells = rows.map(([a, b]): [string, string] => [
    neutralize(a),
    neutralize((b ?? '').split('\n')[0]!).trim(),
  ]);
  const width = Math.min(40, Math.max(0, ...cells.map(([a]) => a.length)));
  return cells
    .map(([a, line]) => {
      const short = line.length > maxWidth ? `${line.slice(0, maxWidth - 3)}...` : line;
      return `${indent}${a.padEnd(width)}  ${short}`.trimEnd();
    })
    .join('\n');
}
