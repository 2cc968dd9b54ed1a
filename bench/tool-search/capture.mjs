// Captures the `tools/list` of real MCP servers from npm into tools.json, the fixture of the
// tool-search measurement (bench/tool-search/README.md). The servers: those of
// tests/real-servers/servers.mcp.json (the real-server suite) and the three of
// servers.mcp.json beside this file, all started offline from tests/node_modules.
//   node bench/tool-search/capture.mjs        (needs tests/'s dev dependencies installed)
// Each server is asked through the official SDK v1 client's raw `request()` (its
// `listTools()` refuses gitlab's schemas without "type"), every page, and the tools are
// written as sent, with the package name and version each came from.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const modules = path.join(root, 'tests/node_modules');
const configs = [
  path.join(root, 'tests/real-servers/servers.mcp.json'),
  path.join(here, 'servers.mcp.json'),
];

const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpkit-tool-search-'));
const home = path.join(dir, 'home');
const data = path.join(dir, 'data');
mkdirSync(home);
mkdirSync(path.join(data, 'files'), { recursive: true });
symlinkSync(modules, path.join(dir, 'modules'));
const vars = { MCPKIT_REAL_MODULES: path.join(dir, 'modules'), MCPKIT_REAL_DATA: data };
const expand = (v) => v.replace(/\$\{([A-Z_]+)\}/g, (m, name) => vars[name] ?? m);

/** The npm package a server's entry runs, and its installed version. */
const MODULES_VAR = '$' + '{MCPKIT_REAL_MODULES}/';
function packageOf(entry) {
  const script = entry.args.find((a) => a.startsWith(MODULES_VAR));
  const rest = script.slice(MODULES_VAR.length).split('/');
  const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  const { version } = JSON.parse(readFileSync(path.join(modules, name, 'package.json'), 'utf8'));
  return { name, version };
}

const anyResult = z.object({}).passthrough();
async function listTools(entry) {
  const client = new Client(
    { name: 'mcpkit-tool-search-capture', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } },
  );
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args.map(expand),
      env: {
        PATH: process.env.PATH,
        HOME: home,
        LANG: 'C.UTF-8',
        ...Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, expand(v)])),
      },
      cwd: dir,
      stderr: 'ignore',
    }),
  );
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.request(
        { method: 'tools/list', params: cursor ? { cursor } : {} },
        anyResult,
        { timeout: 60_000 },
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

const servers = [];
try {
  for (const file of configs) {
    const { mcpServers } = JSON.parse(readFileSync(file, 'utf8'));
    for (const [name, entry] of Object.entries(mcpServers)) {
      const pkg = packageOf(entry);
      try {
        const tools = await listTools(entry);
        servers.push({ server: name, package: pkg.name, version: pkg.version, tools });
        process.stderr.write(`${name}: ${tools.length} tools (${pkg.name} ${pkg.version})\n`);
      } catch (error) {
        // supabase builds its list from its API: offline it has none.
        process.stderr.write(`${name}: left out, tools/list failed: ${error.message}\n`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const total = servers.reduce((n, s) => n + s.tools.length, 0);
writeFileSync(path.join(here, 'tools.json'), `${JSON.stringify({ servers }, null, 2)}\n`);
process.stderr.write(
  `${total} tools from ${servers.length} servers → bench/tool-search/tools.json\n`,
);
