import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import { processesWith, type Sandbox, sandbox } from '../hostile/cli-harness.js';

/**
 * The real-server suite's one config (servers.mcp.json) and what we know of each server in
 * it. The config names its files through two variables, so the CLI (which expands them),
 * the official SDK client here and the benchmark all start the very same commands:
 * `MCPKIT_REAL_MODULES` is a symlink to tests/node_modules inside the sandbox (so every
 * server's command line carries the sandbox's path, which is how the suite finds what is
 * left running), `MCPKIT_REAL_DATA` a folder of the sandbox the servers may write in.
 */
export const configFile = fileURLToPath(new URL('./servers.mcp.json', import.meta.url));
const modules = fileURLToPath(new URL('../node_modules', import.meta.url));

interface Entry {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export const config = JSON.parse(readFileSync(configFile, 'utf8')) as {
  mcpServers: Record<string, Entry>;
};

/** One harmless offline call per server, and what it answers without a network. */
export interface OfflineCall {
  tool: string;
  args: (box: RealBox) => Record<string, unknown>;
  /** `result`: a CallToolResult (maybe `isError`); `rpc-error`: a JSON-RPC error. */
  answer: 'result' | 'rpc-error';
}

export interface Expected {
  vendor: string;
  /** Tools of the pinned version, as its `tools/list` gives them offline. */
  tools: number;
  /** The protocol revision mcpkit negotiates with it. */
  protocolVersion: string;
  call: OfflineCall;
  /** What this server stands for in the suite. */
  trait?:
    | 'sloppy-schema'
    | 'list-fails-offline'
    | 'mcp-apps'
    | 'modern-era'
    | 'resources-fail-offline';
}

export const expected: Record<string, Expected> = {
  everything: {
    vendor: 'MCP steering group (reference server)',
    tools: 16,
    protocolVersion: '2025-11-25',
    call: { tool: 'echo', args: () => ({ message: 'héllo ✓ "quoted" \\t' }), answer: 'result' },
  },
  filesystem: {
    vendor: 'MCP steering group',
    tools: 14,
    protocolVersion: '2025-11-25',
    call: {
      tool: 'read_text_file',
      args: (box) => ({ path: path.join(box.data, 'files', 'hello.txt') }),
      answer: 'result',
    },
  },
  memory: {
    vendor: 'MCP steering group',
    tools: 9,
    protocolVersion: '2025-11-25',
    // No arguments at all: its schema is an object with no required properties.
    call: { tool: 'read_graph', args: () => ({}), answer: 'result' },
  },
  'sequential-thinking': {
    vendor: 'MCP steering group',
    tools: 1,
    protocolVersion: '2025-11-25',
    call: {
      tool: 'sequentialthinking',
      args: () => ({
        thought: 'one offline thought',
        thoughtNumber: 1,
        totalThoughts: 1,
        nextThoughtNeeded: false,
      }),
      answer: 'result',
    },
  },
  gitlab: {
    vendor: 'GitLab API server (MCP steering group, archived)',
    tools: 9,
    protocolVersion: '2024-11-05',
    trait: 'sloppy-schema',
    call: {
      tool: 'get_file_contents',
      args: () => ({ project_id: 'offline/none', file_path: 'README.md' }),
      answer: 'rpc-error',
    },
  },
  pdf: {
    vendor: 'MCP Apps examples (modelcontextprotocol/ext-apps)',
    tools: 9,
    protocolVersion: '2025-11-25',
    trait: 'mcp-apps',
    call: { tool: 'list_pdfs', args: () => ({}), answer: 'result' },
  },
  postgres: {
    vendor: 'PostgreSQL server (MCP steering group, archived)',
    tools: 1,
    protocolVersion: '2024-11-05',
    trait: 'resources-fail-offline',
    call: { tool: 'query', args: () => ({ sql: 'select 1' }), answer: 'rpc-error' },
  },
  playwright: {
    vendor: 'Microsoft',
    tools: 25,
    protocolVersion: '2025-11-25',
    // No browser is installed for it: the tool answers with that error, and nothing runs.
    call: { tool: 'browser_tabs', args: () => ({ action: 'list' }), answer: 'result' },
  },
  context7: {
    vendor: 'Upstash',
    tools: 2,
    protocolVersion: '2026-07-28',
    trait: 'modern-era',
    call: {
      tool: 'resolve-library-id',
      args: () => ({ query: 'react hooks', libraryName: 'react' }),
      answer: 'result',
    },
  },
  tavily: {
    vendor: 'Tavily',
    tools: 5,
    protocolVersion: '2025-11-25',
    call: { tool: 'tavily_search', args: () => ({ query: 'offline' }), answer: 'result' },
  },
  notion: {
    vendor: 'Notion',
    tools: 24,
    protocolVersion: '2025-11-25',
    call: { tool: 'API-get-self', args: () => ({}), answer: 'rpc-error' },
  },
  circleci: {
    vendor: 'CircleCI',
    tools: 13,
    protocolVersion: '2025-11-25',
    call: { tool: 'list_followed_projects', args: () => ({}), answer: 'result' },
  },
  chart: {
    vendor: 'AntV (Ant Group)',
    tools: 27,
    protocolVersion: '2025-11-25',
    call: {
      tool: 'generate_bar_chart',
      args: () => ({ data: [{ category: 'a', value: 1 }] }),
      answer: 'rpc-error',
    },
  },
  'brave-search': {
    vendor: 'Brave',
    tools: 8,
    protocolVersion: '2025-11-25',
    call: { tool: 'brave_web_search', args: () => ({ query: 'offline' }), answer: 'result' },
  },
  exa: {
    vendor: 'Exa',
    tools: 2,
    protocolVersion: '2025-11-25',
    call: { tool: 'web_search_exa', args: () => ({ query: 'offline' }), answer: 'result' },
  },
  supabase: {
    vendor: 'Supabase',
    tools: 0,
    protocolVersion: '2026-07-28',
    trait: 'list-fails-offline',
    // Its tools/list fetches from the Supabase API, but the tool is there to call.
    call: { tool: 'list_projects', args: () => ({}), answer: 'result' },
  },
};

export const names = Object.keys(config.mcpServers);

/** A sandbox with the config's two variables set; see `configFile`. */
export interface RealBox extends Sandbox {
  config: string;
  data: string;
  modules: string;
}

export function realBox(): RealBox {
  const box = sandbox('mcpkit-real-');
  const data = path.join(box.dir, 'data');
  const linked = path.join(box.dir, 'modules');
  mkdirSync(path.join(data, 'files'), { recursive: true });
  symlinkSync(modules, linked);
  writeFileSync(path.join(data, 'files', 'hello.txt'), 'héllo wörld ✓ "quoted" \\t\ttab\r\nend');
  // Stdio servers of a config file run in that file's folder: the sandbox, not tests/.
  const config = path.join(box.dir, 'servers.mcp.json');
  writeFileSync(config, readFileSync(configFile));
  box.env.MCPKIT_REAL_MODULES = linked;
  box.env.MCPKIT_REAL_DATA = data;
  // The servers' temp files go inside the sandbox, removed with it: @playwright/mcp, asked
  // for a browser it does not have, leaves two empty playwright-* folders in the temp dir
  // (Playwright makes them before it looks for the browser and does not remove them).
  const tmp = path.join(box.dir, 'tmp');
  mkdirSync(tmp);
  box.env.TMPDIR = tmp;
  return Object.assign(box, { config, data, modules: linked });
}

/** `${VAR}` and `${VAR:-default}`, as the config expands them. */
export function expand(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (m, name: string, fallback?: string) => {
    const found = env[name];
    return found !== undefined && found !== '' ? found : (fallback ?? m);
  });
}

/** The official SDK v1 client, connected to one server of the config as the CLI starts it. */
export async function sdkClient(box: RealBox, name: string): Promise<Client> {
  const entry = config.mcpServers[name]!;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(box.env)) if (v !== undefined) env[k] = v;
  for (const [k, v] of Object.entries(entry.env ?? {})) env[k] = expand(v, box.env);
  const transport = new StdioClientTransport({
    command: entry.command,
    args: (entry.args ?? []).map((a) => expand(a, box.env)),
    env,
    cwd: box.dir,
    stderr: 'ignore',
  });
  // The capabilities the CLI declares (and no roots: it runs with --no-roots): servers such
  // as everything list tools by what the client can do.
  const client = new Client(
    { name: 'sdk-v1-reference', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } },
  );
  await client.connect(transport, { timeout: 60_000 });
  return client;
}

/**
 * What the SDK v1 client got from one server in one session: `tools/list`, then the
 * server's offline call. `raw`: the list read with a result schema that accepts anything,
 * for a server whose list SDK v1's own schema refuses (then `refused` says why).
 */
export interface SdkSession {
  tools?: Array<Record<string, unknown>>;
  raw?: Array<Record<string, unknown>>;
  refused?: string;
  error?: string;
  call: { result?: Record<string, unknown>; error?: string };
}

const anyResult = z.object({ tools: z.array(z.record(z.string(), z.unknown())) }).passthrough();
const messageOf = (error: unknown) => String((error as Error).message);

export async function sdkSession(box: RealBox, name: string): Promise<SdkSession> {
  let client: Client | undefined;
  try {
    client = await sdkClient(box, name);
    let list: Omit<SdkSession, 'call'>;
    try {
      const r = await client.listTools(undefined, { timeout: 60_000 });
      list = { tools: r.tools as Array<Record<string, unknown>> };
    } catch (error) {
      if (/-32\d\d\d/.test(messageOf(error))) list = { error: messageOf(error) };
      else {
        const raw = await client.request({ method: 'tools/list' }, anyResult, { timeout: 60_000 });
        list = { raw: raw.tools, refused: messageOf(error) };
      }
    }
    const { tool, args } = expected[name]!.call;
    const call = await client
      .callTool({ name: tool, arguments: args(box) }, undefined, { timeout: 60_000 })
      .then(
        (result) => ({ result: result as Record<string, unknown> }),
        (error: unknown) => ({ error: messageOf(error) }),
      );
    return { ...list, call };
  } catch (error) {
    return { error: messageOf(error), call: { error: messageOf(error) } };
  } finally {
    await client?.close();
  }
}

/** The processes of this sandbox still running (servers carry its path in their argv). */
export function leftIn(box: RealBox) {
  return processesWith(box.dir);
}

/** Runs `fn` over `items`, `limit` at a time, keeping the order of the results. */
export async function inTurns<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
