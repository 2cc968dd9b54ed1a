// @mcpkit/config on its own: the servers a coding agent would start in this folder.
import { homedir } from 'node:os';
import { formatDiagnostic, loadConfig } from '@mcpkit/config';

export async function main(cwd: string, home = homedir()): Promise<string[]> {
  const { servers, errors, warnings } = await loadConfig({ cwd, home });
  for (const d of [...errors, ...warnings]) console.error(formatDiagnostic(d));
  return servers.map(
    (s) => `${s.name} (${s.scope}): ${s.status}${s.status === 'enabled' ? '' : ` — ${s.reason}`}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log((await main(process.cwd())).join('\n'));
