import { chmod } from 'node:fs/promises';
import {
  addServer,
  parseJsoncText,
  readConfigFile,
  redactServerConfig,
  type ServerConfig,
} from '@mcpkit/config';
import { configPaths } from '@mcpkit/config/advanced';
import {
  type Answer,
  type Candidate,
  checkStatus,
  chooseCandidate,
  type InstallKind,
  localName,
  OFFICIAL_REGISTRY,
  type PlannedEntry,
  parseServerSpec,
  RegistryClient,
  type RegistryEntry,
  RegistryError,
  RegistryErrorCode,
  type RegistryQuestion,
  referenceName,
  registryBase,
  toConfigEntry,
  transportsOf,
} from '@mcpkit/config/registry';
import { UsageError } from '../core/io.js';
import type { CliContext } from '../core/server-selection.js';
import { neutralize } from '../terminal/neutralize.js';
import type { Output } from '../terminal/output.js';
import { parseScope, writeOptions } from './config.js';

/** The default time budget of one registry request when `--timeout` is not given. */
const REGISTRY_TIMEOUT_MS = 15_000;

export interface RegistryFlags {
  registry?: string[] | undefined;
  /** `--timeout`, when given. */
  timeoutMs?: number | undefined;
}

/**
 * The registries to ask, in order: `--registry` (repeatable), else `registries` in the
 * managed settings, else in the user's settings (`settings.json`), else the official one.
 */
export async function registriesOf(ctx: CliContext, flags: RegistryFlags): Promise<string[]> {
  if (flags.registry?.length) return flags.registry.map(registryBase);
  const found = await setting(ctx, 'registries');
  if (!found) return [OFFICIAL_REGISTRY];
  const { file, value } = found;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string'))
    throw new Error(`${file}: "registries" must be a list of registry URLs`);
  return value.map((v) => {
    try {
      return registryBase(v as string);
    } catch (error) {
      throw new Error(`${file}: "registries": ${(error as Error).message}`);
    }
  });
}

/** A CLI setting: from the managed settings, else the user's `settings.json`; with its file. */
async function setting(
  ctx: CliContext,
  key: string,
): Promise<{ file: string; value: unknown } | undefined> {
  const paths = configPaths({ home: ctx.home, env: ctx.env, platform: process.platform });
  for (const file of [paths.managedSettings, paths.userSettings]) {
    const text = await readConfigFile(file);
    if (text === undefined) continue;
    const parsed = parseJsoncText(text, file);
    const value = (parsed.value as Record<string, unknown> | undefined)?.[key];
    if (parsed.error || value === undefined) continue;
    return { file, value };
  }
  return undefined;
}

/**
 * The `pypiIndexUrl` setting (a PyPI "simple" index, e.g. `https://pypi.example.com/simple`),
 * which `uvx` gets as `--index-url` for PyPI packages: an http(s) URL without credentials (it
 * is written into the config entry and is on uvx's command line); `undefined` when unset.
 */
export async function pypiIndexOf(ctx: CliContext): Promise<string | undefined> {
  const found = await setting(ctx, 'pypiIndexUrl');
  if (!found) return undefined;
  const { file, value } = found;
  const bad = (why: string) => new Error(`${file}: "pypiIndexUrl" ${why}`);
  const like = ' (a PyPI simple index, like https://pypi.org/simple)';
  if (typeof value !== 'string' || value.length > 2048 || /[\s\p{Cc}]/u.test(value))
    throw bad(`must be a URL${like}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad(`${JSON.stringify(value)} is not a URL${like}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw bad(`must be an http(s) URL${like}`);
  if (url.username || url.password)
    throw bad(
      'must not carry credentials (they would be on every command line and in the config file); give them to uv with its own settings',
    );
  return url.href;
}

function client(base: string, flags: RegistryFlags): RegistryClient {
  return new RegistryClient(base, { timeoutMs: flags.timeoutMs ?? REGISTRY_TIMEOUT_MS });
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100)
    throw new UsageError('--limit must be a whole number from 1 to 100');
  return n;
}

/** `mcpkit search <query> [--limit n] [--registry url]... [--json]` */
export async function searchCommand(
  out: Output,
  ctx: CliContext,
  rest: string[],
  flags: RegistryFlags & { limit?: string | undefined; json: boolean },
): Promise<number> {
  if (rest.length > 1)
    throw new UsageError('usage: mcpkit search <query> (quote a query with spaces)');
  const query = rest[0] ?? '';
  const limit = parseLimit(flags.limit);
  const registries = await registriesOf(ctx, flags);
  const seen = new Set<string>();
  const found: RegistryEntry[] = [];
  const failures: RegistryError[] = [];
  let more = false;
  for (const base of registries) {
    if (found.length >= limit) break;
    try {
      const result = await client(base, flags).search(query, { limit: limit - found.length });
      more ||= result.more;
      // The first registry that lists a name wins (an enterprise registry before the official one).
      for (const entry of result.entries)
        if (!seen.has(entry.server.name)) {
          seen.add(entry.server.name);
          found.push(entry);
        }
    } catch (error) {
      if (!RegistryError.isInstance(error)) throw error;
      failures.push(error);
    }
  }
  // Each server.json checked against the official schema: an invalid one is listed, marked.
  const { checkServerJson, describeSchemaErrors } = await import('./registry-validate.js');
  const checks = await Promise.all(found.map((e) => checkServerJson(e.server)));
  const invalid = found.filter((_, i) => checks[i]!.count > 0);
  if (flags.json) {
    out.json({
      servers: found.map((e, i) => ({
        registry: e.registry,
        server: e.server,
        status: e.official.status ?? 'active',
        official: e.official,
        valid: checks[i]!.count === 0,
        ...(checks[i]!.count > 0
          ? { schemaErrors: checks[i]!.errors, schemaErrorCount: checks[i]!.count }
          : {}),
      })),
      more,
      errors: failures.map((e) => ({ registry: e.registry, code: e.code, message: e.message })),
    });
  } else {
    if (found.length === 0 && failures.length === 0)
      out.stdout(`no servers match "${query}" in ${registries.join(', ')}\n`);
    else if (found.length > 0) {
      const rows = [
        ['NAME', 'VERSION', 'STATUS', 'TRANSPORTS', 'DESCRIPTION'],
        ...found.map((e, i) => [
          e.server.name,
          e.server.version,
          `${e.official.status ?? 'active'}${checks[i]!.count > 0 ? ', invalid' : ''}`,
          transportsOf(e.server).join(', ') || '-',
          (e.server.description ?? '').split('\n')[0] ?? '',
        ]),
      ].map((row) => row.map((cell) => neutralize(cell)));
      const widths = [0, 1, 2, 3].map((i) =>
        Math.min(48, Math.max(...rows.map((r) => r[i]!.length))),
      );
      for (const row of rows)
        out.stdout(
          `${row
            .map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell))
            .join('  ')
            .trimEnd()}\n`,
        );
      if (registries.length > 1 || registries[0] !== OFFICIAL_REGISTRY)
        out.stdout(
          `(from ${found
            .map((e) => e.registry)
            .filter((r, i, a) => a.indexOf(r) === i)
            .join(', ')})\n`,
        );
      if (more)
        out.stdout(
          `more servers match; narrow the query or raise --limit (now ${limit}, at most 100)\n`,
        );
      out.stdout('install one with: mcpkit install <name>[@version]\n');
    }
    if (invalid.length > 0)
      out.stderr(
        `mcpkit: ${invalid.length} of the ${found.length} servers listed ${invalid.length === 1 ? 'does' : 'do'} not match the official server.json schema (marked invalid; install refuses ${invalid.length === 1 ? 'it' : 'them'}):\n${found
          .map((e, i) =>
            checks[i]!.count > 0
              ? `  ${neutralize(e.server.name)} (${e.registry}): ${neutralize(describeSchemaErrors(checks[i]!))}\n`
              : '',
          )
          .join('')}`,
      );
    for (const e of failures) out.stderr(`mcpkit: ${e.message}\n`);
  }
  return failures.length > 0 ? 1 : 0;
}

export interface InstallFlags extends RegistryFlags {
  scope?: string | undefined;
  env?: string[] | undefined;
  dryRun?: boolean | undefined;
  allowDeprecated?: boolean | undefined;
  store?: string | undefined;
  use?: string | undefined;
  as?: string | undefined;
  json: boolean;
  showSecrets: boolean;
  interactive: boolean;
}

/** Finds the entry in the registries in order: a 404 moves on, any other failure stops. */
async function lookUp(
  registries: readonly string[],
  name: string,
  version: string,
  flags: RegistryFlags,
): Promise<RegistryEntry> {
  for (const base of registries) {
    const entry = await client(base, flags).get(name, version);
    if (entry) return entry;
  }
  throw new RegistryError(
    RegistryErrorCode.NotFound,
    `no server "${name}"${version === 'latest' ? '' : ` at version ${version}`} in ${registries.join(', ')}`,
    { server: name },
  );
}

function givenValues(env: string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of env ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`-e "${pair}" must look like KEY=VALUE`);
    out.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return out;
}

type Store = 'values' | 'refs';

async function askStore(file: string): Promise<Store> {
  const clack = await import('@clack/prompts');
  const answer = await clack.select({
    message: 'How should the secrets be kept?',
    options: [
      { value: 'values', label: `as values in the config file (written 0600): ${file}` },
      { value: 'refs', label: '${VAR} references: you set the variables in your environment' },
    ],
  });
  if (clack.isCancel(answer)) throw new Cancelled();
  return answer as Store;
}

class Cancelled extends Error {}

async function ask(q: RegistryQuestion): Promise<string> {
  const clack = await import('@clack/prompts');
  const message = neutralize(`${q.key}${q.description ? ` — ${q.description}` : ''}`);
  const answer = q.choices?.length
    ? await clack.select({
        message,
        options: q.choices.map((c) => ({ value: c, label: neutralize(c) })),
      })
    : q.isSecret
      ? await clack.password({
          message,
          validate: (v) => (v ? undefined : 'required'),
        })
      : await clack.text({
          message,
          validate: (v) => (v ? undefined : 'required'),
        });
  if (clack.isCancel(answer)) throw new Cancelled();
  return String(answer);
}

/** The entry with each secret the mapping marked replaced, by position. */
function redacted(plan: PlannedEntry): Record<string, unknown> {
  const entry = structuredClone(plan.entry);
  for (const path of plan.secretPaths) {
    let node = entry as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    const value = node[last];
    // A `${VAR}` reference is no secret: it is kept so the user sees what to set.
    if (typeof value === 'string' && !/^\$\{[A-Za-z0-9_]+\}$/.test(value)) node[last] = '***';
  }
  return redactServerConfig(entry as ServerConfig) as Record<string, unknown>;
}

/**
 * `mcpkit install <name>[@version] [--scope s] [--dry-run] [-e KEY=VALUE]... [--store values|refs]
 * [--use npm|pypi|oci|remote] [--as <name>] [--allow-deprecated] [--registry url]...`
 */
export async function installCommand(
  out: Output,
  ctx: CliContext,
  rest: string[],
  flags: InstallFlags,
): Promise<number> {
  try {
    return await install(out, ctx, rest, flags);
  } catch (error) {
    if (!RegistryError.isInstance(error)) throw error;
    const advice = registryAdvice(error);
    out.stderr(`mcpkit: ${neutralize(error.message)}${advice ? `; ${advice}` : ''}\n`);
    return 1;
  }
}

async function install(
  out: Output,
  ctx: CliContext,
  rest: string[],
  flags: InstallFlags,
): Promise<number> {
  const [spec] = rest;
  if (!spec || rest.length > 1)
    throw new UsageError('usage: mcpkit install <name>[@version] [--scope local|project|user]');
  const { name, version } = parseServerSpec(spec);
  const scope = parseScope(flags.scope);
  if (flags.store !== undefined && flags.store !== 'values' && flags.store !== 'refs')
    throw new UsageError('--store must be values or refs');
  const kinds: InstallKind[] = ['npm', 'pypi', 'oci', 'remote'];
  if (flags.use !== undefined && !kinds.includes(flags.use as InstallKind))
    throw new UsageError(`--use must be one of ${kinds.join(', ')}`);
  const given = givenValues(flags.env);
  const registries = await registriesOf(ctx, flags);
  const entry = await lookUp(registries, name, version, flags);
  // What is turned into a command line must be a server.json the official schema accepts.
  await (await import('./registry-validate.js')).assertServerJson(entry);
  checkStatus(entry, flags.allowDeprecated ?? false);
  const candidate: Candidate = chooseCandidate(entry, flags.use as InstallKind | undefined);
  const entryName = flags.as ?? localName(entry.server.name);
  const unknown = [...given.keys()].filter((k) => !candidate.questions.some((q) => q.key === k));
  if (unknown.length > 0)
    throw new UsageError(
      `server "${entry.server.name}" (${candidate.label}) takes no ${unknown.join(', ')}; it takes: ${candidate.questions.map((q) => q.key).join(', ') || 'nothing'}`,
    );
  const needed = candidate.questions.filter((q) => q.isRequired && q.default === undefined);
  const secrets = needed.filter((q) => q.isSecret);
  // Where the secrets go: the flag, else asked on a terminal when a secret is to be typed,
  // else values (given with -e, they are what the user asked to store).
  let store: Store = (flags.store as Store | undefined) ?? 'values';
  if (
    flags.store === undefined &&
    flags.interactive &&
    !flags.dryRun &&
    secrets.some((q) => !given.has(q.key))
  )
    store = await askStore(
      scope === 'local' ? `the local scope (${ctx.cwd})` : `the ${scope} scope`,
    ).catch((error) => {
      if (error instanceof Cancelled) return 'cancelled' as unknown as Store;
      throw error;
    });
  if ((store as string) === 'cancelled') {
    out.stderr('mcpkit: cancelled; nothing was written\n');
    return 1;
  }
  if (store === 'values' && scope === 'project' && secrets.length > 0 && !flags.dryRun)
    throw new UsageError(
      `${secrets.map((q) => q.key).join(', ')} ${secrets.length === 1 ? 'is a secret' : 'are secrets'}: a project file (.mcp.json) is shared, so it gets \${VAR} references only (--store refs), or install it in the local or user scope`,
    );
  const answers = new Map<string, Answer>();
  for (const [key, value] of given) answers.set(key, { value });
  const refs: string[] = [];
  if (store === 'refs')
    // Every secret a reference: one given with -e is not written to the file either.
    for (const q of candidate.questions.filter((q) => q.isSecret)) {
      if (!needed.includes(q) && !answers.has(q.key)) continue;
      const ref = referenceName(q.key);
      answers.set(q.key, { reference: ref });
      refs.push(ref);
    }
  const missing = needed.filter((q) => !answers.has(q.key));
  if (missing.length > 0 && flags.dryRun) {
    // A dry run asks nothing: what is missing is shown as the reference it would need.
    for (const q of missing) answers.set(q.key, { reference: referenceName(q.key) });
  } else if (missing.length > 0 && !flags.interactive) {
    out.stderr(
      `mcpkit: server "${entry.server.name}" needs ${missing
        .map(
          (q) =>
            `${q.key}${q.isSecret ? ' (secret)' : ''}${q.description ? ` (${q.description})` : ''}`,
        )
        .join(
          ', ',
        )}; there is no terminal to ask on: give ${missing.length === 1 ? 'it' : 'each'} with -e KEY=VALUE${missing.some((q) => q.isSecret) ? ', or keep the secrets as ${VAR} references with --store refs' : ''}\n`,
    );
    return 1;
  } else if (missing.length > 0) {
    const clack = await import('@clack/prompts');
    clack.intro(neutralize(`${entry.server.name} ${entry.server.version} needs:`));
    try {
      for (const q of missing) answers.set(q.key, { value: await ask(q) });
    } catch (error) {
      if (!(error instanceof Cancelled)) throw error;
      clack.cancel('cancelled; nothing was written');
      return 1;
    }
    clack.outro('thanks');
  }
  const plan = toConfigEntry(entry, candidate, answers, {
    pypiIndexUrl: candidate.kind === 'pypi' ? await pypiIndexOf(ctx) : undefined,
  });
  const shown = flags.showSecrets ? plan.entry : redacted(plan);
  const hasSecretValues = plan.secretPaths.some((path) => {
    let node: unknown = plan.entry;
    for (const key of path) node = (node as Record<string | number, unknown>)[key];
    return typeof node === 'string' && !/^\$\{[A-Za-z0-9_]+\}$/.test(node);
  });
  let file: string | undefined;
  if (!flags.dryRun) {
    file = await addServer(scope, entryName, plan.entry, writeOptions(ctx));
    // Secret values at rest: readable by this account only (the local scope's file already is).
    if (hasSecretValues) await chmod(file, 0o600);
  }
  const where =
    scope === 'local'
      ? `the local scope (for ${ctx.cwd} only)`
      : scope === 'project'
        ? 'the project scope'
        : 'the user scope';
  if (flags.json) {
    out.json({
      name: entryName,
      server: entry.server.name,
      version: entry.server.version,
      registry: entry.registry,
      status: entry.official.status ?? 'active',
      installedAs: plan.kind,
      scope,
      ...(file ? { file } : {}),
      dryRun: flags.dryRun ?? false,
      entry: shown,
      references: refs,
      notes: plan.notes,
    });
    return 0;
  }
  out.stdout(
    `${flags.dryRun ? 'would add' : 'added'} server "${entryName}" (${entry.server.name} ${entry.server.version}, ${candidate.label}, from ${entry.registry}) ${flags.dryRun ? 'to' : 'to'} ${where}${file ? `: ${file}` : ''}\n`,
  );
  out.stdout(`${JSON.stringify(shown, null, 2)}\n`);
  if (entry.official.status === 'deprecated')
    out.stderr(
      `mcpkit: warning: ${entry.server.name} ${entry.server.version} is deprecated${entry.official.statusMessage ? `: ${entry.official.statusMessage}` : ''}\n`,
    );
  for (const note of plan.notes) out.stderr(`mcpkit: note: ${note}\n`);
  if (refs.length > 0)
    out.stderr(
      `mcpkit: set ${refs.join(', ')} in the environment mcpkit runs in; the entry reads ${refs.map((r) => `\${${r}}`).join(', ')}\n`,
    );
  if (hasSecretValues && file)
    out.stderr(`mcpkit: secrets stored as values; ${file} is readable by you only (0600)\n`);
  return 0;
}

/** The CLI's words for a registry refusal, with what to do next. */
export function registryAdvice(error: RegistryError): string | undefined {
  if (error.code === RegistryErrorCode.Status && error.status === 'deprecated')
    return 'install it anyway with --allow-deprecated';
  if (error.code === RegistryErrorCode.NotFound) return 'look for it with "mcpkit search <words>"';
  if (error.code === RegistryErrorCode.SchemaInvalid)
    return 'nothing was written; the entry must be fixed by its publisher or the registry (or add the server by hand with "mcpkit add")';
  return undefined;
}
