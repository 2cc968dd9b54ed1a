// Tool search recall (issue #23, tool search for capped clients): the gateway's search index
// (`ToolIndex` of @mcpkit/gateway, MiniSearch) over the real tool lists of tools.json
// (captured from real MCP servers from npm by capture.mjs), asked the natural-language
// queries of queries.json. A query counts when one of its expected tools is among the first
// five results (the search tool's default limit). Names are the gateway's (`<server>__<tool>`).
//   node bench/tool-search/run.mjs        (after the build; `pnpm bench` prints it at its end)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nameAll, ToolIndex } from '@mcpkit/gateway';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOP = 5;
const TARGET = 0.9;

/** The recall of the fixture's queries: top-1 and top-5 hits, and the queries missed. */
export function measureToolSearch() {
  const { servers } = JSON.parse(readFileSync(path.join(here, 'tools.json'), 'utf8'));
  const { queries } = JSON.parse(readFileSync(path.join(here, 'queries.json'), 'utf8'));
  const pairs = servers.flatMap((s) =>
    s.tools.map((tool) => ({ server: s.server, item: tool.name, tool })),
  );
  const { names } = nameAll(pairs, { separator: '__', prefix: true });
  const byPair = new Map(pairs.map((p) => [`${p.server}\u0000${p.item}`, p.tool]));
  const index = new ToolIndex();
  index.replace(
    [...names].map(([name, pair]) => ({ ...byPair.get(`${pair.server}\u0000${pair.item}`), name })),
  );
  let top1 = 0;
  let top5 = 0;
  const misses = [];
  const started = process.hrtime.bigint();
  for (const { query, expected } of queries) {
    const found = index.search(query, TOP).map((t) => t.name);
    if (expected.includes(found[0])) top1++;
    if (found.some((n) => expected.includes(n))) top5++;
    else misses.push({ query, expected, found });
  }
  const msPerQuery = Number(process.hrtime.bigint() - started) / 1e6 / queries.length;
  return {
    tools: names.size,
    servers: servers.length,
    queries: queries.length,
    top1,
    top5,
    misses,
    msPerQuery,
  };
}

export function printToolSearchRows() {
  const r = measureToolSearch();
  const pct = (n) => `${((100 * n) / r.queries).toFixed(1)} %`;
  const rows = [
    ['tool search over real tools', 'figure'],
    ['---', '---'],
    ['tools indexed (servers)', `${r.tools} (${r.servers})`],
    ['queries', String(r.queries)],
    ['expected tool first', `${r.top1} (${pct(r.top1)})`],
    ['expected tool in the top 5', `${r.top5} (${pct(r.top5)})`],
    ['search time per query, first includes the build (ms)', r.msPerQuery.toFixed(2)],
  ];
  const lines = rows.map((row) => `| ${row.join(' | ')} |`).join('\n');
  const met = r.top5 / r.queries >= TARGET;
  const missed = r.misses
    .map(
      (m) => `  missed: "${m.query}" → want ${m.expected.join(' or ')}; got ${m.found.join(', ')}`,
    )
    .join('\n');
  process.stdout.write(
    `\n${lines}\n${missed ? `${missed}\n` : ''}\nTargets:\n  ${met ? 'met' : 'NOT met'}: tool search top-5 recall ≥ ${TARGET * 100} % (${pct(r.top5)})\n`,
  );
  return r;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printToolSearchRows();
