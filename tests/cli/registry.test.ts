// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests expect ${VAR} references in the entries written
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry } from '../fixtures/registry-server.mjs';
import {
  bin,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * `mcpkit search` and `mcpkit install` (issue #28, servers from the MCP Registry), the built
 * CLI against a real HTTP registry on 127.0.0.1 serving our fixture server.json documents
 * (checked against the official schema in registry-client.test.ts).
 */
const entries = JSON.parse(
  readFileSync(new URL('../fixtures/mcp-registry/entries.json', import.meta.url), 'utf8'),
);
// An enterprise registry's own entry, beside the public ones.
const acme = [
  {
    server: {
      name: 'com.acme/internal-tools',
      description: 'Acme internal tools.',
      version: '3.0.0',
      remotes: [{ type: 'sse', url: 'https://mcp.acme.example/sse' }],
    },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
  },
  // The same name as a public entry: the first registry asked wins.
  { ...entries[5], server: { ...entries[5].server, description: 'Acme weather (mirror).' } },
];

// A registry that does not check what it is sent: one valid entry, and one whose server.json
// the official schema refuses (a package version "latest", a repository without "source")
// though every field mcpkit itself reads is there: it would install as npx @someone/floating@latest.
const floating = {
  server: {
    name: 'io.github.someone/floating',
    description: 'Always the newest build.',
    version: '0.3.0',
    repository: { url: 'https://github.com/someone/floating' },
    packages: [
      {
        registryType: 'npm',
        identifier: '@someone/floating',
        version: 'latest',
        transport: { type: 'stdio' },
      },
    ],
  },
  _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
};

let registry: Awaited<ReturnType<typeof startRegistry>>;
beforeAll(async () => {
  registry = await startRegistry({
    registries: { ok: entries, acme, lax: [entries[1], floating] },
  });
});
afterAll(async () => {
  await registry.close();
});

let box: Sandbox | undefined;
let tmux: Tmux | undefined;
afterEach((context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

const reg = (prefix = 'ok') => ['--registry', `${registry.url}/${prefix}`];
function setup() {
  box = sandbox('mcpkit-cli-registry-');
  return box;
}
const run = (args: string[]) => runCli(args, { env: box!.env, cwd: box!.cwd });
const userFile = () => path.join(box!.home, '.config/mcpkit/mcp.json');
const localFile = () => path.join(box!.home, '.config/mcpkit/projects.json');

describe('mcpkit search', () => {
  it('lists name, version, status, transports and description, over several pages', async () => {
    setup();
    const r = await run(['search', 'example', ...reg()]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+STATUS\s+TRANSPORTS\s+DESCRIPTION$/);
    expect(r.stdout).toMatch(
      /io\.github\.example\/time\s+0\.6\.2\s+active\s+stdio \(pypi\)\s+Time and time-zone conversion\./,
    );
    expect(r.stdout).toMatch(/com\.example\/weather\s+2\.1\.0\s+active\s+streamable-http, sse\s+/);
    expect(r.stdout).toMatch(/io\.github\.example\/old-notes\s+1\.4\.0\s+deprecated/);
    expect(r.stdout).not.toContain('io.github.example/gone');
  });

  it('--json: the entries as the registry sent them; --limit bounds them', async () => {
    setup();
    const r = await run(['search', 'filesystem', '--json', ...reg()]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.servers).toHaveLength(1);
    expect(out.servers[0].server).toEqual(entries[1].server);
    expect(out.servers[0].status).toBe('active');
    const limited = JSON.parse(
      (await run(['search', '', '--json', '--limit', '2', ...reg()])).stdout,
    );
    expect(limited.servers).toHaveLength(2);
    expect(limited.more).toBe(true);
  });

  it('the "registries" setting: enterprise registries asked in order, the first to list a name wins', async () => {
    setup();
    mkdirSync(path.join(box!.home, '.config/mcpkit'), { recursive: true });
    writeFileSync(
      path.join(box!.home, '.config/mcpkit/settings.json'),
      JSON.stringify({ registries: [`${registry.url}/acme`, `${registry.url}/ok`] }),
    );
    const r = await run(['search', '', '--json', '--limit', '100']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    const names = out.servers.map((s: { server: { name: string } }) => s.server.name);
    expect(names.slice(0, 2)).toEqual(['com.acme/internal-tools', 'com.example/weather']);
    expect(out.servers[1].server.description).toBe('Acme weather (mirror).');
    expect(out.servers[1].registry).toBe(`${registry.url}/acme`);
    expect(names.filter((n: string) => n === 'com.example/weather')).toHaveLength(1);
    // install reads the same setting.
    const i = await run(['install', 'com.acme/internal-tools', '--dry-run']);
    expect(i.code).toBe(0);
    expect(i.stdout).toContain(`from ${registry.url}/acme`);
  });

  it.each([
    ['huge', /answered .* with more than 4194304 bytes; not read/],
    ['slow', /did not answer .* within 3000 ms/],
    ['malformed', /answered .* with an answer without a "servers" array/],
    [
      'away',
      /redirected .* to http:\/\/localhost:\d+\/ok\/v0\.1\/servers.*another origin; not followed/,
    ],
  ])(
    'a registry that answers badly (%s): a clear error naming it, exit 1',
    async (prefix, words) => {
      setup();
      const r = await run([
        'search',
        'x',
        ...(prefix === 'slow' ? ['--timeout', '3000'] : []),
        ...reg(prefix),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`mcpkit: registry ${registry.url}/${prefix} `);
      expect(r.stderr).toMatch(words);
    },
  );

  it('an entry the official server.json schema refuses: listed marked invalid, its schema paths on stderr; --json says valid: false', async () => {
    setup();
    const r = await run(['search', '', ...reg('lax')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/io\.modelcontextprotocol\/filesystem\s+1\.0\.2\s+active\s+stdio/);
    expect(r.stdout).toMatch(
      /io\.github\.someone\/floating\s+0\.3\.0\s+active, invalid\s+stdio \(npm\)/,
    );
    expect(r.stderr).toBe(
      'mcpkit: 1 of the 2 servers listed does not match the official server.json schema (marked invalid; install refuses it):\n' +
        `  io.github.someone/floating (${registry.url}/lax): /packages/0/version must not be "latest" (#/definitions/Package/properties/version/not); /repository must have required property 'source' (#/definitions/Repository/required)\n`,
    );
    const json = JSON.parse((await run(['search', '', '--json', ...reg('lax')])).stdout);
    expect(json.servers.map((s: { valid: boolean }) => s.valid)).toEqual([true, false]);
    // The document as the registry sent it, and where it fails.
    expect(json.servers[1].server).toEqual(floating.server);
    expect(json.servers[1].schemaErrorCount).toBe(2);
    expect(json.servers[1].schemaErrors).toEqual([
      {
        instancePath: '/packages/0/version',
        schemaPath: '#/definitions/Package/properties/version/not',
        message: 'must not be "latest"',
      },
      {
        instancePath: '/repository',
        schemaPath: '#/definitions/Repository/required',
        message: "must have required property 'source'",
      },
    ]);
  });

  it('one bad registry among several: the good one is still listed, the bad one named', async () => {
    setup();
    const r = await run(['search', 'time', ...reg('malformed'), ...reg('ok')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('io.github.example/time');
    expect(r.stderr).toContain(`registry ${registry.url}/malformed`);
  });
});

describe('mcpkit install', () => {
  it('npm: written to the user scope as npx -y <id>@<version>, says where; -e gives the argument', async () => {
    setup();
    const r = await run([
      'install',
      'io.modelcontextprotocol/filesystem',
      '--scope',
      'user',
      '-e',
      'allowed_directory=/srv/data',
      ...reg(),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `added server "filesystem" (io.modelcontextprotocol/filesystem 1.0.2, npm package @modelcontextprotocol/server-filesystem, from ${registry.url}/ok) to the user scope: ${userFile()}`,
    );
    const written = JSON.parse(readFileSync(userFile(), 'utf8'));
    expect(written.mcpServers.filesystem).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem@1.0.2', '/srv/data'],
    });
    // mcpkit list sees it.
    const list = await run(['list']);
    expect(list.stdout).toMatch(/filesystem\s+user/);
  });

  it('name@version installs that version', async () => {
    setup();
    const r = await run([
      'install',
      'io.modelcontextprotocol/filesystem@1.0.1',
      '--dry-run',
      '-e',
      'allowed_directory=/d',
      ...reg(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('@modelcontextprotocol/server-filesystem@1.0.1');
  });

  it('pypi: uvx <id>==<version>, to the local scope (for this folder), --as names it', async () => {
    setup();
    const r = await run(['install', 'io.github.example/time', '--as', 'clock', ...reg()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`to the local scope (for ${box!.cwd} only)`);
    const state = JSON.parse(readFileSync(localFile(), 'utf8'));
    expect(JSON.stringify(state)).toContain('"clock"');
    expect(JSON.stringify(state)).toContain('["mcp-server-time==0.6.2","--local-timezone","UTC"]');
  });

  it('pypi with the "pypiIndexUrl" setting: uvx --index-url <url> <id>==<version>; a URL with credentials refused, nothing written', async () => {
    setup();
    const settings = path.join(box!.home, '.config/mcpkit/settings.json');
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, JSON.stringify({ pypiIndexUrl: 'https://pypi.corp.example/simple' }));
    const r = await run(['install', 'io.github.example/time', '--scope', 'user', ...reg()]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(userFile(), 'utf8')).mcpServers.time).toEqual({
      command: 'uvx',
      args: [
        '--index-url',
        'https://pypi.corp.example/simple',
        'mcp-server-time==0.6.2',
        '--local-timezone',
        'UTC',
      ],
    });
    // npm packages are not given the PyPI index.
    const npm = await run([
      'install',
      'io.modelcontextprotocol/filesystem',
      '--dry-run',
      '--json',
      ...reg(),
    ]);
    expect(JSON.parse(npm.stdout).entry.args).toEqual([
      '-y',
      '@modelcontextprotocol/server-filesystem@1.0.2',
      '${ALLOWED_DIRECTORY}',
    ]);
    writeFileSync(
      settings,
      JSON.stringify({ pypiIndexUrl: 'https://me:pw@pypi.corp.example/simple' }),
    );
    const bad = await run(['install', 'io.github.example/time', '--as', 'clock', ...reg()]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${settings}: "pypiIndexUrl" must not carry credentials`);
    expect(bad.stderr).not.toContain('pw@');
    expect(() => statSync(localFile())).toThrow();
    writeFileSync(settings, JSON.stringify({ pypiIndexUrl: 'file:///srv/simple' }));
    const file = await run(['install', 'io.github.example/time', '--dry-run', ...reg()]);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('"pypiIndexUrl" must be an http(s) URL');
  });

  it('oci: docker run -i --rm with env passed by name; the secret value stored 0600 and printed redacted', async () => {
    setup();
    const r = await run([
      'install',
      'io.github.example/example-oci',
      '--scope',
      'user',
      '-e',
      'API_KEY=sk-live-42',
      ...reg(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('sk-live-42');
    expect(r.stdout).toContain('"API_KEY": "***"');
    expect(r.stderr).toContain('readable by you only (0600)');
    const written = JSON.parse(readFileSync(userFile(), 'utf8')).mcpServers['example-oci'];
    expect(written).toEqual({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '--network',
        'none',
        '-e',
        'API_KEY',
        '-e',
        'LOG_LEVEL',
        'ghcr.io/modelcontextprotocol/server-example:v1.0.0',
      ],
      env: { API_KEY: 'sk-live-42', LOG_LEVEL: 'info' },
    });
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
  });

  it('remote: an http entry with the URL template filled; --store refs keeps the secret as ${VAR}', async () => {
    setup();
    const r = await run([
      'install',
      'com.example/weather',
      '--scope',
      'user',
      '-e',
      'tenant=acme',
      '--store',
      'refs',
      ...reg(),
    ]);
    expect(r.stderr).toContain('set API_KEY in the environment mcpkit runs in');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(userFile(), 'utf8')).mcpServers.weather).toEqual({
      type: 'http',
      url: 'https://acme.weather.example.com/mcp',
      headers: { Authorization: 'Bearer ${API_KEY}' },
    });
  });

  it('--dry-run writes nothing and prints the entry, what is missing shown as ${VAR}', async () => {
    setup();
    const r = await run([
      'install',
      'com.example/weather',
      '--dry-run',
      '--use',
      'remote',
      ...reg(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('would add server "weather"');
    expect(r.stdout).toContain('"url": "https://${TENANT}.weather.example.com/mcp"');
    expect(() => statSync(localFile())).toThrow();
    expect(() => statSync(userFile())).toThrow();
  });

  it('a required value without a terminal: refused, naming it and -e; nothing written', async () => {
    setup();
    const r = await run(['install', 'io.github.example/brave-search', ...reg()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'needs BRAVE_API_KEY (secret) (Your Brave Search API key); there is no terminal to ask on: give it with -e KEY=VALUE',
    );
    expect(() => statSync(localFile())).toThrow();
  });

  it('a key the entry does not take is refused (a typo would otherwise be dropped silently)', async () => {
    setup();
    const r = await run([
      'install',
      'io.github.example/brave-search',
      '-e',
      'BRAVE_KEY=x',
      ...reg(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('takes no BRAVE_KEY; it takes: BRAVE_API_KEY, BRAVE_LOG_LEVEL');
  });

  it('secret values are refused in the shared project file; refs are allowed there', async () => {
    setup();
    const r = await run([
      'install',
      'io.github.example/brave-search',
      '--scope',
      'project',
      '-e',
      'BRAVE_API_KEY=x',
      ...reg(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a project file (.mcp.json) is shared');
    const ok = await run([
      'install',
      'io.github.example/brave-search',
      '--scope',
      'project',
      '--store',
      'refs',
      // With refs, a secret given with -e is not written either.
      '-e',
      'BRAVE_API_KEY=do-not-write',
      ...reg(),
    ]);
    expect(ok.code).toBe(0);
    expect(readFileSync(path.join(box!.cwd, '.mcp.json'), 'utf8')).not.toContain('do-not-write');
    const project = JSON.parse(readFileSync(path.join(box!.cwd, '.mcp.json'), 'utf8'));
    expect(project.mcpServers['brave-search'].env.BRAVE_API_KEY).toBe('${BRAVE_API_KEY}');
  });

  it('deprecated: refused with the reason unless --allow-deprecated; deleted: always refused', async () => {
    setup();
    const d = await run(['install', 'io.github.example/old-notes', ...reg()]);
    expect(d.code).toBe(1);
    expect(d.stderr).toContain(
      `server "io.github.example/old-notes" 1.4.0 is deprecated in registry ${registry.url}/ok: Please upgrade to version 2.0.0; install it anyway with --allow-deprecated`,
    );
    const allowed = await run([
      'install',
      'io.github.example/old-notes',
      '--allow-deprecated',
      '--dry-run',
      ...reg(),
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toContain(
      'warning: io.github.example/old-notes 1.4.0 is deprecated: Please upgrade to version 2.0.0',
    );
    const gone = await run(['install', 'io.github.example/gone', '--allow-deprecated', ...reg()]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('is deleted in registry');
    expect(gone.stderr).toContain('Published by mistake');
  });

  it('mcpb only: refused with the reason; an unknown name: not found, with where it looked', async () => {
    setup();
    const b = await run(['install', 'io.github.example/bundle', ...reg()]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('has no package or remote mcpkit can run: mcpb package');
    expect(b.stderr).toContain(
      'mcpb package https://github.com/owner/repo/releases/download/v1.0.0/server-macos-arm64.mcpb: an MCPB bundle must be downloaded and checked against its SHA-256',
    );
    const n = await run(['install', 'io.github.example/nothing', ...reg()]);
    expect(n.code).toBe(1);
    expect(n.stderr).toContain(`no server "io.github.example/nothing" in ${registry.url}/ok`);
  });

  it('an entry the official server.json schema refuses: MCPKIT_REGISTRY_SCHEMA_INVALID naming the registry, the server and the failing paths; nothing written', async () => {
    setup();
    const r = await run([
      'install',
      'io.github.someone/floating',
      '--scope',
      'user',
      ...reg('lax'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mcpkit: registry ${registry.url}/lax serves server "io.github.someone/floating" 0.3.0 with a server.json that does not match the official schema: ` +
        `/packages/0/version must not be "latest" (#/definitions/Package/properties/version/not); /repository must have required property 'source' (#/definitions/Repository/required); ` +
        'nothing was written; the entry must be fixed by its publisher or the registry (or add the server by hand with "mcpkit add")\n',
    );
    expect(() => statSync(userFile())).toThrow();
    expect(() => statSync(localFile())).toThrow();
    // --allow-deprecated does not lift it; the valid entry beside it installs.
    expect(
      (
        await run([
          'install',
          'io.github.someone/floating',
          '--allow-deprecated',
          '--dry-run',
          ...reg('lax'),
        ])
      ).code,
    ).toBe(1);
    const ok = await run([
      'install',
      'io.modelcontextprotocol/filesystem',
      '--dry-run',
      ...reg('lax'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
  });

  it.each([
    ['huge', /more than 4194304 bytes/],
    ['slow', /did not answer .* within 3000 ms/],
    ['malformed', /not JSON/],
    ['away', /another origin; not followed/],
  ])(
    'a registry that answers badly (%s) stops the install with its name; nothing written',
    async (prefix, words) => {
      setup();
      const r = await run([
        'install',
        'io.github.example/time',
        ...(prefix === 'slow' ? ['--timeout', '3000'] : []),
        ...reg(prefix),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`registry ${registry.url}/${prefix}`);
      expect(r.stderr).toMatch(words);
      expect(() => statSync(localFile())).toThrow();
    },
  );

  it('on a terminal: asks how to keep secrets, then asks the secret hidden; stored 0600', async () => {
    setup();
    tmux = new Tmux(box!, box!.env);
    tmux.start([
      process.execPath,
      bin,
      'install',
      'io.github.example/brave-search',
      '--scope',
      'user',
      ...reg(),
    ]);
    const screenWith = (text: string) => () => (tmux!.screen().includes(text) ? true : undefined);
    await waitFor(screenWith('How should the secrets be kept?'), 'the storage question');
    tmux.sendKeys('Enter'); // values in the file
    await waitFor(screenWith('BRAVE_API_KEY'), 'the secret question');
    tmux.sendKeys('-l', 'hunter2-secret');
    await waitFor(() => (/[▪•]{14}/.test(tmux!.screen()) ? true : undefined), 'the masked input');
    expect(tmux.screen()).not.toContain('hunter2-secret');
    tmux.sendKeys('Enter');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(0);
    const screen = tmux.screen();
    expect(screen).not.toContain('hunter2-secret');
    expect(screen).toContain('added server "brave-search"');
    expect(
      JSON.parse(readFileSync(userFile(), 'utf8')).mcpServers['brave-search'].env.BRAVE_API_KEY,
    ).toBe('hunter2-secret');
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
  });
});
