// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests expect ${VAR} references in the entries written
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type Answer,
  candidates,
  chooseCandidate,
  MAX_REGISTRY_BYTES,
  parseRegistryEntry,
  RegistryClient,
  type RegistryEntry,
  RegistryError,
  RegistryErrorCode,
  toConfigEntry,
} from '@mcpkit/config/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry } from '../fixtures/registry-server.mjs';

/**
 * The MCP Registry client of `@mcpkit/config/registry` against a real HTTP registry on
 * 127.0.0.1 (tests/fixtures/registry-server.mjs) serving our fixture `server.json`
 * documents, each checked against the registry's official JSON Schema.
 */
const require = createRequire(import.meta.url);
// The official schema, kept (and shipped) with the CLI, which validates every registry answer.
const schemaFile = new URL(
  '../../apps/cli/src/commands/registry-schema/server.schema.json',
  import.meta.url,
);
const entries = JSON.parse(
  readFileSync(new URL('../fixtures/mcp-registry/entries.json', import.meta.url), 'utf8'),
) as Array<{ server: { name: string; version: string } }>;

let registry: Awaited<ReturnType<typeof startRegistry>>;
beforeAll(async () => {
  registry = await startRegistry({ registries: { ok: entries } });
});
afterAll(async () => {
  await registry.close();
});

const entryOf = (name: string, version?: string): RegistryEntry => {
  const found = entries.find(
    (e) => e.server.name === name && (version === undefined || e.server.version === version),
  );
  return parseRegistryEntry(found, 'https://registry.test', 'https://registry.test/x');
};

describe('the fixture documents', () => {
  it('the schema kept with the CLI is byte for byte the one at modelcontextprotocol/registry@145c2ec', () => {
    const bytes = readFileSync(schemaFile);
    expect(bytes.length).toBe(22427);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      'db58e10690fc08bd88fdd9aadc5134a2624b67451630bab86978a8f704c3afcb',
    );
  });

  it('every server.json in entries.json is valid against the official server.schema.json', () => {
    const Ajv = require('ajv').default;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
    for (const e of entries) {
      const ok = validate(e.server);
      expect({ name: e.server.name, errors: ok ? null : validate.errors }).toEqual({
        name: e.server.name,
        errors: null,
      });
    }
    // The schema does reject what it must: a package version "latest".
    expect(
      validate({
        name: 'a/b',
        description: 'd',
        version: '1',
        packages: [
          { registryType: 'npm', identifier: 'x', version: 'latest', transport: { type: 'stdio' } },
        ],
      }),
    ).toBe(false);
  });
});

describe('RegistryClient against a registry that answers well', () => {
  it('search follows nextCursor over pages (2 per page here) and keeps only the latest versions', async () => {
    const client = new RegistryClient(`${registry.url}/ok`);
    const before = registry.requests.length;
    const result = await client.search('', { limit: 100 });
    const names = result.entries.map((e) => `${e.server.name}@${e.server.version}`);
    expect(names).toContain('io.modelcontextprotocol/filesystem@1.0.2');
    expect(names).not.toContain('io.modelcontextprotocol/filesystem@1.0.1');
    // Deleted entries are not listed by the registry.
    expect(names.some((n) => n.startsWith('io.github.example/gone'))).toBe(false);
    expect(result.entries).toHaveLength(7);
    expect(result.more).toBe(false);
    const pages = registry.requests.slice(before);
    expect(pages).toHaveLength(4);
    expect(pages.slice(1).every((r) => r.includes('cursor='))).toBe(true);
  });

  it('search stops at --limit and says more matched', async () => {
    const result = await new RegistryClient(`${registry.url}/ok`).search('example', { limit: 3 });
    expect(result.entries).toHaveLength(3);
    expect(result.more).toBe(true);
  });

  it('get reads one version, or latest; a 404 is undefined', async () => {
    const client = new RegistryClient(`${registry.url}/ok/`);
    expect((await client.get('io.modelcontextprotocol/filesystem'))?.server.version).toBe('1.0.2');
    expect((await client.get('io.modelcontextprotocol/filesystem', '1.0.1'))?.server.version).toBe(
      '1.0.1',
    );
    expect(await client.get('io.modelcontextprotocol/nothing')).toBeUndefined();
    // The name's "/" travels URL-encoded, as the API says.
    expect(registry.requests.at(-1)).toContain(
      '/servers/io.modelcontextprotocol%2Fnothing/versions/latest',
    );
  });

  it('a same-origin redirect is followed', async () => {
    const entry = await new RegistryClient(`${registry.url}/hop`).get('io.github.example/time');
    expect(entry?.server.name).toBe('io.github.example/time');
  });
});

describe('RegistryClient against registries that answer badly: typed errors naming the registry', () => {
  const failure = async (
    prefix: string,
    run: (c: RegistryClient) => Promise<unknown>,
    timeoutMs?: number,
  ) => {
    const client = new RegistryClient(`${registry.url}/${prefix}`, {
      ...(timeoutMs ? { timeoutMs } : {}),
    });
    const error = await run(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(RegistryError.isInstance(error)).toBe(true);
    const e = error as RegistryError;
    expect(e.registry).toBe(`${registry.url}/${prefix}`);
    expect(e.message).toContain(`${registry.url}/${prefix}`);
    return e;
  };

  it('a body that never ends is cut at the byte bound (TooLarge)', async () => {
    const e = await failure('huge', (c) => c.search('x'));
    expect(e.code).toBe(RegistryErrorCode.TooLarge);
    expect(e.limitBytes).toBe(MAX_REGISTRY_BYTES);
  });

  it('a body that stops coming fails at the timeout (Timeout), not never', async () => {
    const e = await failure('slow', (c) => c.search('x'), 2000);
    expect(e.code).toBe(RegistryErrorCode.Timeout);
    expect(e.timeoutMs).toBe(2000);
  });

  it('a list that is not the API shape, and a lookup that is not JSON (Malformed)', async () => {
    expect((await failure('malformed', (c) => c.search('x'))).code).toBe(
      RegistryErrorCode.Malformed,
    );
    expect((await failure('malformed', (c) => c.get('a/b'))).code).toBe(
      RegistryErrorCode.Malformed,
    );
  });

  it('a redirect to another origin is not followed (Redirect)', async () => {
    const before = registry.requests.length;
    const e = await failure('away', (c) => c.get('io.github.example/time'));
    expect(e.code).toBe(RegistryErrorCode.Redirect);
    expect(e.location).toMatch(/^http:\/\/localhost:\d+\/ok\//);
    expect(registry.requests.slice(before).some((r) => r.startsWith('localhost:'))).toBe(false);
  });
});

describe('a server.json as a config entry', () => {
  const answers = (pairs: Record<string, Answer>) => new Map(Object.entries(pairs));

  it('npm: npx -y <identifier>@<version> with its package arguments', () => {
    const e = entryOf('io.modelcontextprotocol/filesystem', '1.0.2');
    const plan = toConfigEntry(
      e,
      chooseCandidate(e),
      answers({ allowed_directory: { value: '/srv/data' } }),
    );
    expect(plan.entry).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem@1.0.2', '/srv/data'],
    });
  });

  it('npm: a package on another registry is fetched from it (npx --registry); a registry URL that is not plain https is not passed', () => {
    const onRegistry = (url: string): RegistryEntry => {
      const e = structuredClone(entryOf('io.modelcontextprotocol/filesystem', '1.0.2'));
      e.server.packages![0]!.registryBaseUrl = url;
      return e;
    };
    const plan = (e: RegistryEntry) =>
      toConfigEntry(e, chooseCandidate(e), answers({ allowed_directory: { value: '/srv/data' } }));
    expect(plan(onRegistry('https://npm.example.com/repo/')).entry).toEqual({
      command: 'npx',
      args: [
        '-y',
        '--registry=https://npm.example.com/repo/',
        '@modelcontextprotocol/server-filesystem@1.0.2',
        '/srv/data',
      ],
    });
    expect(plan(onRegistry('https://registry.npmjs.org')).entry.args).not.toContainEqual(
      expect.stringMatching(/^--registry/),
    );
    for (const bad of ['http://npm.example.com', 'https://u:p@npm.example.com', 'https://x y']) {
      const refused = plan(onRegistry(bad));
      expect(refused.entry.args).not.toContainEqual(expect.stringMatching(/^--registry/));
      expect(refused.notes.join('\n')).toContain('npx installs from your npm registry setting');
    }
  });

  it('npm: a secret env value marked by position; a default filled in', () => {
    const e = entryOf('io.github.example/brave-search');
    const plan = toConfigEntry(
      e,
      chooseCandidate(e),
      answers({ BRAVE_API_KEY: { value: 'k-123' } }),
    );
    expect(plan.entry).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-brave-search@0.6.2'],
      env: { BRAVE_API_KEY: 'k-123', BRAVE_LOG_LEVEL: 'info' },
    });
    expect(plan.secretPaths).toEqual([['env', 'BRAVE_API_KEY']]);
  });

  it('pypi: uvx <identifier>==<version>, a named argument with its default', () => {
    const e = entryOf('io.github.example/time');
    const plan = toConfigEntry(e, chooseCandidate(e), answers({}));
    expect(plan.entry).toEqual({
      command: 'uvx',
      args: ['mcp-server-time==0.6.2', '--local-timezone', 'UTC'],
    });
  });

  it('oci: docker run -i --rm, runtime arguments before the image, env passed by name with -e', () => {
    const e = entryOf('io.github.example/example-oci');
    const plan = toConfigEntry(
      e,
      chooseCandidate(e),
      answers({ API_KEY: { reference: 'API_KEY' } }),
    );
    expect(plan.entry).toEqual({
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
      env: { API_KEY: '${API_KEY}', LOG_LEVEL: 'info' },
    });
  });

  it('remote: URL template variables filled, a header value template filled, secret marked', () => {
    const e = entryOf('com.example/weather');
    const c = chooseCandidate(e);
    expect(c.questions.map((q) => [q.key, q.isRequired, q.isSecret])).toEqual([
      ['tenant', true, false],
      ['api_key', true, true],
    ]);
    const plan = toConfigEntry(
      e,
      c,
      answers({ tenant: { value: 'acme' }, api_key: { value: 's3cret' } }),
    );
    expect(plan.entry).toEqual({
      type: 'http',
      url: 'https://acme.weather.example.com/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    expect(plan.secretPaths).toEqual([['headers', 'Authorization']]);
    const sse = toConfigEntry(e, candidates(e.server).usable[1]!, answers({}));
    expect(sse.entry).toEqual({ type: 'sse', url: 'https://sse.weather.example.com/sse' });
  });

  it('a URL variable filled with something that makes no http(s) URL is refused', () => {
    const e = entryOf('com.example/weather');
    expect(() =>
      toConfigEntry(
        e,
        chooseCandidate(e),
        answers({ tenant: { value: 'a b/../' }, api_key: { value: 'x' } }),
      ),
    ).toThrow(/not an http\(s\) URL/);
  });

  it('an identifier or version that would be an option on the command line is not used', () => {
    const hostile = parseRegistryEntry(
      {
        server: {
          name: 'io.github.evil/x',
          description: 'd',
          version: '1.0.0',
          packages: [
            {
              registryType: 'npm',
              identifier: '--package=evil',
              version: '1.0.0',
              transport: { type: 'stdio' },
            },
            {
              registryType: 'pypi',
              identifier: 'ok-name',
              version: '1.0 --index-url=http://evil',
              transport: { type: 'stdio' },
            },
            { registryType: 'oci', identifier: '-v/:/host', transport: { type: 'stdio' } },
          ],
        },
      },
      'https://registry.test',
      'https://registry.test/x',
    );
    const error = (() => {
      try {
        chooseCandidate(hostile);
      } catch (err) {
        return err as RegistryError;
      }
    })();
    expect(error?.code).toBe(RegistryErrorCode.Unsupported);
    expect(error?.reasons).toEqual([
      'npm package --package=evil: "--package=evil" is not a package name or version mcpkit passes to npx',
      'pypi package ok-name: "1.0 --index-url=http://evil" is not a package name or version mcpkit passes to uvx',
      'oci package -v/:/host: "-v/:/host" is not a package name or version mcpkit passes to docker',
    ]);
  });

  it("oci: the entry's own docker options are said in a note", () => {
    const e = entryOf('io.github.example/example-oci');
    const plan = toConfigEntry(e, chooseCandidate(e), answers({ API_KEY: { value: 'x' } }));
    expect(plan.notes).toContain('the entry gives docker these options: --network none');
  });

  it('mcpb only: Unsupported with the reason', () => {
    const e = entryOf('io.github.example/bundle');
    const error = (() => {
      try {
        chooseCandidate(e);
      } catch (err) {
        return err as RegistryError;
      }
    })();
    expect(error?.code).toBe(RegistryErrorCode.Unsupported);
    expect(error?.reasons[0]).toContain('MCPB bundle');
  });
});
