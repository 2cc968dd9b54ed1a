import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { McpkitError } from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';

// Every error class every package exports, found on disk: each package's exports map is
// read and each source entry (`@mcpkit/source` condition) imported, so a new package, a new
// subpath or a new class is covered without anyone adding it here.
const packagesDir = fileURLToPath(new URL('../../packages/', import.meta.url));

type ErrorClass = (abstract new (
  ...args: never[]
) => Error) & {
  isInstance?: (value: unknown) => boolean;
};

interface Found {
  /** `@mcpkit/x` or `@mcpkit/x/sub`, then the export name. */
  where: string;
  cls: ErrorClass;
}

function sourceEntries(): string[] {
  const entries: string[] = [];
  for (const dir of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const root = join(packagesDir, dir.name);
    let manifest: { name: string; exports?: Record<string, unknown> };
    try {
      manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    for (const target of Object.values(manifest.exports ?? {})) {
      const source = (target as Record<string, unknown> | string | null) ?? {};
      const file = typeof source === 'object' ? source['@mcpkit/source'] : undefined;
      if (typeof file === 'string' && file.endsWith('.ts')) entries.push(join(root, file));
    }
  }
  return entries;
}

async function exportedErrorClasses(): Promise<Found[]> {
  const found = new Map<ErrorClass, Found>();
  for (const entry of sourceEntries()) {
    const mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    const where = entry.slice(packagesDir.length);
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value !== 'function') continue;
      if (!(value.prototype instanceof Error)) continue;
      if (!found.has(value as ErrorClass))
        found.set(value as ErrorClass, { where: `${where}#${name}`, cls: value as ErrorClass });
    }
  }
  return [...found.values()];
}

// One argument that every constructor accepts in every position: it reads as a string in
// a message, trims like a string, joins like an array, and has no `code`/`cause` of its own. A class whose
// constructor still cannot be called with it must be given a factory here; the test fails
// until it is, so nothing is skipped silently.
function anyArgument(): unknown {
  const text = 'sample';
  return new Proxy([text], {
    get(target, key, receiver) {
      if (key in target) return Reflect.get(target, key, receiver);
      const method = (String.prototype as unknown as Record<PropertyKey, unknown>)[key];
      return typeof method === 'function' ? method.bind(text) : undefined;
    },
  });
}
const factories: Record<string, (cls: ErrorClass) => Error> = {
  // Its first argument is its code, which must be one of its own.
  ConfigReadError: (cls) => Reflect.construct(cls, ['MCPKIT_CONFIG_UNREADABLE', 'f', 'p']) as Error,
  // Its third argument is the tool's normalized result, whose text it quotes.
  ToolResultError: (cls) =>
    Reflect.construct(cls, [
      'srv',
      'tool',
      { content: [], text: 'failed', isError: true, truncated: false, files: [] },
    ]) as Error,
  // Its second argument is the error that stopped the connection.
  ServerConnectError: (cls) =>
    Reflect.construct(cls, [
      'srv',
      new Error('refused'),
      'check the server',
      { failure: { kind: 'other' }, nextStep: { kind: 'reconnect' } },
    ]) as Error,
  // Its argument is the resolved entry the gate refused.
  ServerNotEnabledError: (cls) =>
    Reflect.construct(cls, [
      { name: 'srv', status: 'disabled', reason: 'off', source: 'f', config: { command: 'x' } },
    ]) as Error,
};

function construct(found: Found): Error {
  const name = found.cls.name;
  const factory = factories[name];
  if (factory) return factory(found.cls);
  const args = Array.from({ length: Math.max(found.cls.length, 1) }, anyArgument);
  try {
    return Reflect.construct(found.cls, args) as Error;
  } catch (error) {
    throw new Error(
      `cannot construct ${found.where} from generic arguments (${String(error)}); add a factory for it in tests/errors/error-brands.test.ts`,
    );
  }
}

const classes = await exportedErrorClasses();

describe('exported error classes', () => {
  it('finds the error classes of every package on disk', () => {
    const packages = new Set(classes.map((c) => c.where.split('/')[0]));
    // Floors, not exact counts: the families the error model has today must all be seen.
    for (const pkg of [
      'jsonrpc',
      'client',
      'auth',
      'config',
      'transport-stdio',
      'transport-websocket',
    ])
      expect(packages, `errors exported by packages/${pkg}`).toContain(pkg);
    expect(classes.length).toBeGreaterThanOrEqual(25);
  });

  it('every one is an McpkitError with a code', () => {
    for (const found of classes) {
      const error = construct(found);
      expect(McpkitError.isInstance(error), `${found.where} is an McpkitError`).toBe(true);
      // Classes that take their code as an argument got the generic argument as one.
      expect((error as McpkitError).code, `${found.where} has a code`).toBeTruthy();
    }
  });

  it('A.isInstance(new B) holds exactly when B is A or a subclass of A, for every pair', () => {
    const mistakes: string[] = [];
    for (const b of classes) {
      const instance = construct(b);
      for (const a of classes) {
        const expected = a.cls === b.cls || b.cls.prototype instanceof a.cls;
        const actual = a.cls.isInstance?.(instance);
        if (actual !== expected)
          mistakes.push(`${a.where}.isInstance(new ${b.where}) is ${actual}, expected ${expected}`);
      }
    }
    expect(mistakes).toEqual([]);
  });

  it('the base class built with a subclass code does not pass the subclass check', async () => {
    const { ErrorCode, TimeoutError } = await import('@mcpkit/jsonrpc');
    const fake = new McpkitError(ErrorCode.Timeout, 'not a timeout');
    expect(TimeoutError.isInstance(fake)).toBe(false);
  });

  it('a subclass that declares no brand of its own still gets one', () => {
    const { TimeoutError } = classes.reduce<Record<string, ErrorClass>>(
      (all, c) => Object.assign(all, { [c.cls.name]: c.cls }),
      {},
    ) as unknown as { TimeoutError: new (message: string, timeoutMs: number) => McpkitError };
    class ForgetfulTimeoutError extends TimeoutError {}
    const child = new ForgetfulTimeoutError('m', 1);
    const parent = new TimeoutError('m', 1);
    expect(
      (TimeoutError as unknown as typeof McpkitError).isInstance(child),
      'parent check on child',
    ).toBe(true);
    expect(
      (ForgetfulTimeoutError as unknown as typeof McpkitError).isInstance(parent),
      'child check on parent',
    ).toBe(false);
  });

  it('every McpkitError class declares its own brand, qualified by its package', () => {
    const unqualified: string[] = [];
    for (const found of classes) {
      if (!(found.cls.prototype instanceof McpkitError)) continue;
      const dir = found.where.split('/')[0] ?? '';
      const manifest = JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8'));
      const declared = Object.hasOwn(found.cls, 'brand')
        ? (found.cls as unknown as { brand: unknown }).brand
        : undefined;
      if (declared !== `${manifest.name}.${found.cls.name}`)
        unqualified.push(`${found.where}: ${String(declared)}`);
    }
    expect(unqualified).toEqual([]);
  });

  it('two same-named classes from two packages do not answer isInstance for each other', async () => {
    const { ServerNotEnabledError } = await import('@mcpkit/config');
    // Another package's class of the same name that declares no brand (the default).
    class LocalServerNotEnabledError extends McpkitError {}
    Object.defineProperty(LocalServerNotEnabledError, 'name', { value: 'ServerNotEnabledError' });
    const other = new LocalServerNotEnabledError('MCPKIT_SERVER_NOT_ENABLED', 'elsewhere');
    expect(ServerNotEnabledError.isInstance(other)).toBe(false);
    const real = construct({
      where: 'config',
      cls: ServerNotEnabledError as unknown as ErrorClass,
    });
    expect(LocalServerNotEnabledError.isInstance(real)).toBe(false);
    expect(ServerNotEnabledError.isInstance(real)).toBe(true);
  });

  it('recognises errors from a second copy of the package (Symbol.for brands)', async () => {
    // A query string makes the module loader evaluate the same file again: a second copy
    // of every class, as when two versions of @mcpkit/jsonrpc sit in one dependency tree.
    const url = `${pathToFileURL(join(packagesDir, 'jsonrpc/src/errors.ts')).href}?second-copy`;
    const copy = (await import(/* @vite-ignore */ url)) as typeof import('@mcpkit/jsonrpc');
    const jsonrpc = await import('@mcpkit/jsonrpc');
    expect(copy.TimeoutError).not.toBe(jsonrpc.TimeoutError);
    const foreign = new copy.TimeoutError('m', 1);
    expect(foreign instanceof jsonrpc.TimeoutError).toBe(false);
    expect(jsonrpc.TimeoutError.isInstance(foreign)).toBe(true);
    expect(jsonrpc.McpkitError.isInstance(foreign)).toBe(true);
    expect(jsonrpc.ConnectionClosedError.isInstance(foreign)).toBe(false);
    expect(copy.TimeoutError.isInstance(new jsonrpc.TimeoutError('m', 1))).toBe(true);
  });
});
