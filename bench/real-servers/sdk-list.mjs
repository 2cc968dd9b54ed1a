// The official SDK v1 client doing what `mcpkit tools --json` does: connect every server of
// a config at once (Promise.all), list their tools, print them as JSON, close, exit.
//   node sdk-list.mjs <config.json>
// The config's `${VAR}` / `${VAR:-default}` are expanded from this process's environment,
// and each server runs in the config file's folder, as the CLI runs it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const file = path.resolve(process.argv[2]);
const { mcpServers } = JSON.parse(readFileSync(file, 'utf8'));
const expand = (v) =>
  v.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (m, name, fallback) => {
    const found = process.env[name];
    return found !== undefined && found !== '' ? found : (fallback ?? m);
  });
const base = {};
for (const k of ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR']) {
  if (process.env[k] !== undefined) base[k] = process.env[k];
}

const results = await Promise.all(
  Object.entries(mcpServers).map(async ([name, entry]) => {
    const env = { ...base };
    for (const [k, v] of Object.entries(entry.env ?? {})) env[k] = expand(v);
    const client = new Client(
      { name: 'sdk-v1-bench', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } },
    );
    try {
      await client.connect(
        new StdioClientTransport({
          command: entry.command,
          args: (entry.args ?? []).map(expand),
          env,
          cwd: path.dirname(file),
          stderr: 'ignore',
        }),
      );
      const { tools } = await client.listTools();
      return { name, tools };
    } catch (error) {
      return { name, error: String(error?.message ?? error) };
    } finally {
      await client.close();
    }
  }),
);
process.stdout.write(`${JSON.stringify({ servers: results }, null, 2)}\n`);
