import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const demo = path.join(root, 'examples/demo.mcp.json');
const scratch = mkdtempSync(path.join(tmpdir(), 'mcpkit-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const everything = path.join(
  root,
  'examples/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

/** Each test gets its own home and project folder: the machine's own config is never read. */
function sandbox() {
  const dir = mkdtempSync(path.join(scratch, 'case-'));
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  return {
    home,
    cwd,
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
  };
}

let ctx = sandbox();

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    argv,
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    ctx,
  );
  return { code, stdout, stderr };
}

function configFile(name: string, content: unknown): string {
  const file = path.join(scratch, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

beforeEach(() => {
  ctx = sandbox();
});

describe('mcpkit CLI', () => {
  it("tools: lists the demo server's tools", async () => {
    const r = await run('--config', demo, 'tools');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^everything \(\d+ tools\)/);
    expect(r.stdout).toContain('get-sum');
    expect(r.stderr).toBe('');
  });

  it('tools --json: machine-readable', async () => {
    const r = await run('--config', demo, '--json', 'tools');
    const out = JSON.parse(r.stdout);
    expect(out.servers[0].name).toBe('everything');
    expect(out.servers[0].tools.length).toBeGreaterThanOrEqual(13);
    expect(out.errors).toEqual([]);
  });

  it('call: get-sum of 2 and 3', async () => {
    const r = await run('--config', demo, 'call', 'everything', 'get-sum', '{"a":2,"b":3}');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\b5\b/);
  });

  it('read and prompt', async () => {
    const list = JSON.parse((await run('--config', demo, '--json', 'resources')).stdout);
    const uri = list.servers[0].resources.find((x: { uri: string }) =>
      x.uri.includes('/static/document/'),
    ).uri;
    const read = await run('--config', demo, 'read', 'everything', uri);
    expect(read.code).toBe(0);
    expect(read.stdout.length).toBeGreaterThan(10);
    const prompt = await run(
      '--config',
      demo,
      'prompt',
      'everything',
      'args-prompt',
      '{"city":"Oslo"}',
    );
    expect(prompt.stdout).toContain("user: What's weather in Oslo?");
    const prompts = await run('--config', demo, 'prompts');
    expect(prompts.stdout).toContain('args-prompt (city, state?)');
  });

  it('a broken server fails alone: the others still answer, the exit code says so', async () => {
    const file = configFile('mixed.mcp.json', {
      mcpServers: {
        good: {
          command: 'node',
          args: [
            path.join(
              root,
              'examples/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
            ),
            'stdio',
          ],
        },
        crashing: {
          command: 'node',
          args: ['-e', 'console.error("boom: missing API key"); process.exit(4)'],
        },
        missing: { command: 'no-such-binary-mcpkit' },
      },
    });
    const r = await run('--config', file, 'tools');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('good (');
    expect(r.stderr).toContain('server "crashing"');
    expect(r.stderr).toContain('exited with code 4');
    expect(r.stderr).toContain('boom: missing API key');
    expect(r.stderr).toContain(
      'server "missing": cannot start "no-such-binary-mcpkit": command not found',
    );
  });

  it('errors are clear: bad JSON with line and column, unknown server, bad arguments', async () => {
    const bad = configFile('bad.json', '{\n  "mcpServers": {\n    "x": { "command" "a" }\n  }\n}');
    const r1 = await run('--config', bad, 'tools');
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/bad\.json:3:\d+: not valid JSON: expected ":"/);
    const r2 = await run('--config', demo, 'call', 'nope', 'x');
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('no server named "nope"');
    const r3 = await run('--config', demo, 'call', 'everything', 'get-sum', '[1]');
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('tool arguments must be a JSON object');
    const r4 = await run('--config', path.join(scratch, 'absent.json'), 'list');
    expect(r4.code).toBe(1);
    expect(r4.stderr).toContain('absent.json: no such file');
    const r5 = await run('frobnicate');
    expect(r5.code).toBe(2);
    expect(r5.stderr).toContain('unknown command "frobnicate"');
  });

  it('warns about unusable entries and still runs the good ones', async () => {
    const file = configFile('partial.mcp.json', {
      mcpServers: {
        remote: { url: 'https://example.invalid/mcp' },
        empty: { command: '' },
      },
    });
    const r = await run('--config', file, 'servers');
    expect(r.stderr).toContain(
      'mcpServers.remote.type: a server with a "url" needs a "type": add "type": "http"',
    );
    expect(r.stderr).toContain('mcpServers.empty.command: expected a non-empty command');
    expect(r.code).toBe(1);
  });

  it('the built binary runs end to end (pnpm test builds first)', () => {
    const bin = path.join(root, 'apps/cli/dist/bin.cjs');
    expect(existsSync(bin), 'apps/cli/dist/bin.cjs is missing: run "pnpm build" first').toBe(true);
    const r = spawnSync(
      process.execPath,
      [bin, '--config', demo, 'call', 'everything', 'echo', '{"message":"hi"}'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('hi');
  });

  it('a project server waits for approval, is never started before it, and starts once approved', async () => {
    writeFileSync(
      path.join(ctx.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { ev: { command: 'node', args: [everything, 'stdio'] } } }),
    );
    const before = await run('tools');
    expect(before.stdout).toBe('');
    expect(before.stderr).toContain('server "ev"');
    expect(before.stderr).toContain('waits for approval: run "mcpkit approve ev"');
    const list = await run('list');
    expect(list.stdout).toMatch(/ev\s+project\s+project server from .* waits for approval/);
    expect((await run('approve', 'ev')).stdout).toContain('approved: ev');
    const after = await run('tools');
    expect(after.stdout).toMatch(/^ev \(\d+ tools\)/);
    // The approval lives in the user's private state, not in the repository.
    expect(readFileSync(path.join(ctx.home, '.config/mcpkit/projects.json'), 'utf8')).toContain(
      '"digest"',
    );
    await run('reject', 'ev');
    expect((await run('call', 'ev', 'echo', '{"message":"x"}')).stderr).toContain('was rejected');
    await run('reset-project-choices');
    expect((await run('list')).stdout).toContain('waits for approval');
  });

  it('add, add-json, list and remove across scopes; list explains shadowing', async () => {
    expect(
      (await run('add', '--scope', 'user', 'fs', 'npx', '--', '-y', 'server-fs', '/tmp')).code,
    ).toBe(0);
    expect(
      (await run('add-json', '--scope', 'local', 'fs', '{"command":"node","args":["fs.js"]}')).code,
    ).toBe(0);
    expect(
      (
        await run(
          'add',
          '--transport',
          'http',
          '-H',
          'Authorization: Bearer ${TOKEN}',
          'api',
          'https://api.example/mcp',
        )
      ).code,
    ).toBe(0);
    const list = await run('list');
    expect(list.stdout).toMatch(/fs\s+local\s+enabled/);
    expect(list.stdout).toMatch(/fs\s+user\s+shadowed by "fs" \(local/);
    expect(list.stdout).toMatch(/api\s+local\s+enabled; missing variables: TOKEN/);
    // Header values are secrets: hidden unless asked for.
    const json = JSON.parse((await run('list', '--json')).stdout);
    expect(json.servers.find((s: { name: string }) => s.name === 'api').config).toEqual({
      type: 'http',
      url: 'https://api.example/mcp',
      headers: { Authorization: '***' },
    });
    const shown = JSON.parse((await run('list', '--json', '--show-secrets')).stdout);
    expect(shown.servers.find((s: { name: string }) => s.name === 'api').config).toEqual({
      type: 'http',
      url: 'https://api.example/mcp',
      headers: { Authorization: 'Bearer ${TOKEN}' },
    });
    expect((await run('remove', 'fs')).stdout).toContain('removed server "fs"');
    expect((await run('list')).stdout).toMatch(/fs\s+user\s+enabled/);
    const dup = await run('add', 'api', 'x');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('already exists');
  });

  it('--strict-config uses only --config servers', async () => {
    await run('add', '--scope', 'user', 'mine', 'true');
    const r = await run('--config', demo, '--strict-config', 'list');
    expect(r.stdout).toMatch(/everything\s+dynamic\s+enabled/);
    expect(r.stdout).toMatch(/mine\s+user\s+ignored: --strict-config/);
  });

  it("import --from reads another host's file and reports what it could not map", async () => {
    const cursor = configFile('cursor.json', {
      mcpServers: {
        docs: { url: 'https://docs.example/mcp' },
        tool: { command: 'python', args: ['t.py'] },
        bad: { args: [] },
      },
    });
    const r = await run('import', '--from', 'cursor', cursor, '--scope', 'project');
    expect(r.stdout).toContain('imported "docs"');
    expect(r.stdout).toContain('imported "tool"');
    expect(r.stderr).toContain('skipped "bad": command: is required');
    expect(r.code).toBe(1);
    expect(
      JSON.parse(readFileSync(path.join(ctx.cwd, '.mcp.json'), 'utf8')).mcpServers.docs,
    ).toEqual({
      url: 'https://docs.example/mcp',
      type: 'http',
    });
  });

  it('remote servers from the config: Streamable HTTP and legacy SSE against server-everything', async () => {
    const { startEverythingHttp } = await import('../../../tests/support/everything-http.js');
    const http = await startEverythingHttp('streamableHttp');
    const sse = await startEverythingHttp('sse');
    try {
      const file = configFile('remote.mcp.json', {
        mcpServers: {
          web: { type: 'http', url: `${http.base}/mcp` },
          legacy: { type: 'sse', url: `${sse.base}/sse` },
        },
      });
      const r = await run('--config', file, 'call', 'web', 'get-sum', '{"a":2,"b":3}');
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/\b5\b/);
      const servers = await run('--config', file, 'servers');
      expect(servers.stdout).toMatch(/legacy\s+connected/);
      expect(servers.stdout).toMatch(/web\s+connected/);
    } finally {
      await http.close();
      await sse.close();
    }
  });
});
