import { isRecord } from '@mcpkit/jsonrpc/errors';
import { RegistryError, RegistryErrorCode } from './errors.js';

/**
 * The MCP Registry's `server.json` (the registry's `ServerDetail`) and what it takes to turn
 * one into a config entry. Pure: no I/O. Field names follow the registry's schema
 * (`docs/reference/server-json/server.schema.json` in `modelcontextprotocol/registry`).
 */

export interface RegistryInput {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  value?: string;
  default?: string;
  placeholder?: string;
  choices?: string[];
  variables?: Record<string, RegistryInput>;
}
export interface RegistryKeyValue extends RegistryInput {
  name: string;
}
export interface RegistryArgument extends RegistryInput {
  type: 'positional' | 'named';
  name?: string;
  valueHint?: string;
  isRepeated?: boolean;
}
export interface RegistryTransport {
  type: string;
  url?: string;
  headers?: RegistryKeyValue[];
  variables?: Record<string, RegistryInput>;
}
export interface RegistryPackage {
  registryType: string;
  identifier: string;
  version?: string;
  registryBaseUrl?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport: RegistryTransport;
  runtimeArguments?: RegistryArgument[];
  packageArguments?: RegistryArgument[];
  environmentVariables?: RegistryKeyValue[];
}
export interface ServerJson {
  name: string;
  /** Required by the schema, but kept as the registry sent it: absent when it sent none. */
  description?: string;
  version: string;
  title?: string;
  websiteUrl?: string;
  repository?: { url: string; source: string };
  packages?: RegistryPackage[];
  remotes?: RegistryTransport[];
  _meta?: Record<string, unknown>;
}

/** The registry's own facts on an entry (`_meta["io.modelcontextprotocol.registry/official"]`). */
export interface OfficialMeta {
  status?: 'active' | 'deprecated' | 'deleted' | string;
  statusMessage?: string;
  statusChangedAt?: string;
  publishedAt?: string;
  updatedAt?: string;
  isLatest?: boolean;
}
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** One entry of a registry answer: the `server.json` and the registry's metadata. */
export interface RegistryEntry {
  server: ServerJson;
  official: OfficialMeta;
  /** The registry it came from (its base URL). */
  registry: string;
}

/** What the user must (or may) give: one value, asked once, used wherever it is referenced. */
export interface RegistryQuestion {
  /** The name the value is given under (`-e KEY=VALUE`) and its `${KEY}` reference. */
  key: string;
  description?: string | undefined;
  isRequired: boolean;
  isSecret: boolean;
  default?: string | undefined;
  choices?: readonly string[] | undefined;
  /** Where it goes: `env`, `header`, `argument` or `url`. */
  where: 'env' | 'header' | 'argument' | 'url';
}

/** How a chosen value is written: the value itself, or a `${KEY}` reference to the environment. */
export type Answer = { value: string } | { reference: string };

/** What a `server.json` is installed as. */
export type InstallKind = 'npm' | 'pypi' | 'oci' | 'remote';

export interface PlannedEntry {
  kind: InstallKind;
  /** The config entry, with every value the questions' answers gave. */
  entry: Record<string, unknown>;
  /** Positions in `entry` that hold a secret value (for printing it redacted). */
  secretPaths: Array<readonly (string | number)[]>;
  /** Facts worth telling the user (ignored fields, ...). */
  notes: string[];
}

/** A candidate way to run the entry, or why it cannot be used. */
export interface Candidate {
  kind: InstallKind;
  /** Index in `packages` or `remotes`. */
  index: number;
  label: string;
  questions: RegistryQuestion[];
}

const KINDS_ORDER: readonly InstallKind[] = ['npm', 'pypi', 'oci', 'remote'];

/** A package identifier or version as a command line may carry it: no option, no blanks. */
const SAFE_WORD = /^[A-Za-z0-9@_~][A-Za-z0-9@._~:/+=-]*$/;

/** An env-var name for a key: what `${KEY}` references use. */
export function referenceName(key: string): string {
  const name = key
    .replace(/^-+/, '')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name || 'VALUE';
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Checks the parts of a registry answer the CLI relies on; throws `Malformed` otherwise. */
export function parseRegistryEntry(value: unknown, registry: string, url: string): RegistryEntry {
  const bad = (what: string) =>
    new RegistryError(
      RegistryErrorCode.Malformed,
      `registry ${registry} answered ${url} with ${what}`,
      { registry, url },
    );
  if (!isRecord(value) || !isRecord(value.server)) throw bad('an entry without a "server" object');
  const s = value.server;
  for (const key of ['name', 'version'] as const)
    if (typeof s[key] !== 'string' || s[key] === '')
      throw bad(`a server without a string "${key}"`);
  if (s.description !== undefined && typeof s.description !== 'string')
    throw bad(`server "${String(s.name)}" with a "description" that is not a string`);
  for (const key of ['packages', 'remotes'] as const)
    if (s[key] !== undefined && !Array.isArray(s[key]))
      throw bad(`server "${String(s.name)}" with "${key}" that is not an array`);
  const meta = isRecord(value._meta) ? value._meta[OFFICIAL_META] : undefined;
  const official: OfficialMeta = {};
  if (isRecord(meta)) {
    for (const key of [
      'status',
      'statusMessage',
      'statusChangedAt',
      'publishedAt',
      'updatedAt',
    ] as const) {
      const v = str(meta[key]);
      if (v !== undefined) official[key] = v;
    }
    if (typeof meta.isLatest === 'boolean') official.isLatest = meta.isLatest;
  }
  return {
    server: s as unknown as ServerJson,
    official,
    registry,
  };
}

/** The transports an entry offers, for a listing: `stdio (npm)`, `streamable-http`, ... */
export function transportsOf(server: ServerJson): string[] {
  const out: string[] = [];
  for (const p of server.packages ?? [])
    if (isRecord(p)) out.push(`${str(p.transport?.type) ?? '?'} (${str(p.registryType) ?? '?'})`);
  for (const r of server.remotes ?? []) if (isRecord(r)) out.push(str(r.type) ?? '?');
  return [...new Set(out)];
}

/** Refuses a deleted entry, and a deprecated one unless `allowDeprecated`. */
export function checkStatus(entry: RegistryEntry, allowDeprecated: boolean): void {
  const status = entry.official.status;
  if (status === 'deleted' || (status === 'deprecated' && !allowDeprecated)) {
    const why = entry.official.statusMessage ? `: ${entry.official.statusMessage}` : '';
    throw new RegistryError(
      RegistryErrorCode.Status,
      `server "${entry.server.name}" ${entry.server.version} is ${status} in registry ${entry.registry}${why}`,
      {
        registry: entry.registry,
        server: entry.server.name,
        status,
        statusMessage: entry.official.statusMessage,
      },
    );
  }
}

/** `{name}` placeholders of a template. */
function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g)].map((m) => m[1]!);
}

function question(
  key: string,
  input: RegistryInput,
  where: RegistryQuestion['where'],
): RegistryQuestion {
  return {
    key,
    description: str(input.description),
    isRequired: input.isRequired === true,
    isSecret: input.isSecret === true,
    default: str(input.default),
    choices: Array.isArray(input.choices)
      ? input.choices.filter((c) => typeof c === 'string')
      : undefined,
    where,
  };
}

/** The questions of one input: its own (no `value`) or those of the variables its value uses. */
function inputQuestions(
  key: string,
  input: RegistryInput,
  where: RegistryQuestion['where'],
): RegistryQuestion[] {
  const value = str(input.value);
  if (value === undefined) return [question(key, input, where)];
  const vars = isRecord(input.variables) ? input.variables : {};
  return placeholders(value)
    .filter((name) => isRecord(vars[name]))
    .map((name) => question(name, vars[name] as RegistryInput, where));
}

function argumentKey(arg: RegistryArgument): string {
  return arg.type === 'named' ? (str(arg.name) ?? 'arg') : (str(arg.valueHint) ?? 'arg');
}

function packageQuestions(p: RegistryPackage): RegistryQuestion[] {
  const out: RegistryQuestion[] = [];
  for (const e of p.environmentVariables ?? [])
    if (isRecord(e) && typeof e.name === 'string') out.push(...inputQuestions(e.name, e, 'env'));
  for (const a of [...(p.runtimeArguments ?? []), ...(p.packageArguments ?? [])])
    if (isRecord(a)) out.push(...inputQuestions(argumentKey(a), a, 'argument'));
  return out;
}

function remoteQuestions(r: RegistryTransport): RegistryQuestion[] {
  const out: RegistryQuestion[] = [];
  const vars = isRecord(r.variables) ? r.variables : {};
  for (const name of placeholders(str(r.url) ?? ''))
    out.push(
      question(
        name,
        isRecord(vars[name]) ? (vars[name] as RegistryInput) : { isRequired: true },
        'url',
      ),
    );
  for (const h of r.headers ?? [])
    if (isRecord(h) && typeof h.name === 'string') out.push(...inputQuestions(h.name, h, 'header'));
  return out;
}

/** One question per key (the first wins; required or secret anywhere makes it so). */
function unique(questions: RegistryQuestion[]): RegistryQuestion[] {
  const byKey = new Map<string, RegistryQuestion>();
  for (const q of questions) {
    const seen = byKey.get(q.key);
    if (!seen) byKey.set(q.key, { ...q });
    else {
      seen.isRequired ||= q.isRequired;
      seen.isSecret ||= q.isSecret;
    }
  }
  return [...byKey.values()];
}

/**
 * The ways an entry can be run, in the order mcpkit prefers them (npm, pypi, oci, then
 * remotes), and why each other package or remote cannot be used.
 */
export function candidates(server: ServerJson): { usable: Candidate[]; unusable: string[] } {
  const usable: Candidate[] = [];
  const unusable: string[] = [];
  for (const [index, p] of (server.packages ?? []).entries()) {
    if (!isRecord(p)) {
      unusable.push(`packages[${index}] is not an object`);
      continue;
    }
    const type = str(p.registryType) ?? '?';
    const label = `${type} package ${str(p.identifier) ?? '?'}`;
    if (type === 'mcpb') {
      unusable.push(
        `${label}: an MCPB bundle must be downloaded and checked against its SHA-256; mcpkit does not install bundles`,
      );
      continue;
    }
    if (type !== 'npm' && type !== 'pypi' && type !== 'oci') {
      unusable.push(`${label}: mcpkit does not run ${type} packages`);
      continue;
    }
    if (typeof p.identifier !== 'string' || p.identifier === '') {
      unusable.push(`${label}: no identifier`);
      continue;
    }
    if (
      (type === 'npm' || type === 'pypi') &&
      (typeof p.version !== 'string' || p.version === '')
    ) {
      unusable.push(`${label}: no version`);
      continue;
    }
    // What goes on npx's, uvx's or docker's command line as the package: never an option
    // (a leading "-") nor anything with spaces or controls, whatever the registry sent.
    const bad = [p.identifier, ...(typeof p.version === 'string' ? [p.version] : [])].find(
      (v) => !SAFE_WORD.test(v),
    );
    if (bad !== undefined) {
      unusable.push(
        `${label}: ${JSON.stringify(bad)} is not a package name or version mcpkit passes to ${type === 'oci' ? 'docker' : type === 'npm' ? 'npx' : 'uvx'}`,
      );
      continue;
    }
    const transport = isRecord(p.transport) ? str(p.transport.type) : undefined;
    if (transport !== 'stdio') {
      unusable.push(
        `${label}: it serves ${transport ?? 'an unknown transport'} once started, and mcpkit only starts stdio packages`,
      );
      continue;
    }
    usable.push({ kind: type, index, label, questions: unique(packageQuestions(p)) });
  }
  for (const [index, r] of (server.remotes ?? []).entries()) {
    const type = isRecord(r) ? str(r.type) : undefined;
    if (
      !isRecord(r) ||
      (type !== 'streamable-http' && type !== 'sse') ||
      typeof r.url !== 'string'
    ) {
      unusable.push(`remotes[${index}]: not a streamable-http or sse remote with a URL`);
      continue;
    }
    usable.push({
      kind: 'remote',
      index,
      label: `${type} remote ${r.url}`,
      questions: unique(remoteQuestions(r)),
    });
  }
  usable.sort((a, b) => KINDS_ORDER.indexOf(a.kind) - KINDS_ORDER.indexOf(b.kind));
  return { usable, unusable };
}

/** Picks the first usable way (of `kind` when given); throws `Unsupported` when there is none. */
export function chooseCandidate(entry: RegistryEntry, kind?: InstallKind): Candidate {
  const { usable, unusable } = candidates(entry.server);
  const pick = usable.find((c) => kind === undefined || c.kind === kind);
  if (pick) return pick;
  const reasons = [...unusable, ...(kind ? usable.map((c) => `${c.label}: not ${kind}`) : [])];
  throw new RegistryError(
    RegistryErrorCode.Unsupported,
    `server "${entry.server.name}" ${entry.server.version} has no ${kind ? `${kind} ` : ''}package or remote mcpkit can run${reasons.length ? `: ${reasons.join('; ')}` : ' (it lists none)'}`,
    { registry: entry.registry, server: entry.server.name, reasons },
  );
}

/** Fills `{name}` placeholders; a name with no answer stays as it is (the schema says so). */
function fill(template: string, lookup: (name: string) => string | undefined): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g, (whole, name: string) => {
    const v = lookup(name);
    return v === undefined ? whole : v;
  });
}

const written = (a: Answer | undefined): string | undefined =>
  a === undefined ? undefined : 'value' in a ? a.value : `\${${a.reference}}`;

/**
 * The value of one input: its fixed `value` with its variables filled, else the answer
 * under `key`, else its default. `undefined` when it has none (an optional input left out).
 */
function inputValue(
  key: string,
  input: RegistryInput,
  answers: ReadonlyMap<string, Answer>,
): { value: string; secret: boolean } | undefined {
  const fixed = str(input.value);
  if (fixed !== undefined) {
    const vars = isRecord(input.variables) ? input.variables : {};
    let secret = input.isSecret === true;
    const value = fill(fixed, (name) => {
      const v = vars[name] as RegistryInput | undefined;
      if (!isRecord(v)) return undefined;
      if (v.isSecret === true) secret = true;
      return written(answers.get(name)) ?? str(v.default);
    });
    return { value, secret };
  }
  const value = written(answers.get(key)) ?? str(input.default);
  return value === undefined ? undefined : { value, secret: input.isSecret === true };
}

/** The questions still without an answer that the entry needs. */
export function unanswered(
  candidate: Candidate,
  answers: ReadonlyMap<string, Answer>,
): RegistryQuestion[] {
  return candidate.questions.filter(
    (q) => q.isRequired && !answers.has(q.key) && q.default === undefined,
  );
}

/** A registry URL fit for a command line: https, no credentials, no spaces or controls. */
function registryUrl(value: string): string | undefined {
  if (value.length > 2048 || /[\s\p{Cc}]/u.test(value)) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' || url.username || url.password) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

export interface ToConfigEntryOptions {
  /**
   * The PyPI index (its "simple" API, `https://pypi.example.com/simple`) uvx installs PyPI
   * packages from: `uvx --index-url <url> <id>==<version>`. An http(s) URL the caller has
   * checked (no credentials: it is on a command line). Default: uv's own index setting.
   */
  pypiIndexUrl?: string | undefined;
}

/**
 * Turns the chosen package or remote into a config entry: npm as `npx -y <id>@<version>`,
 * pypi as `uvx <id>==<version>` (`uvx --index-url <url> …` with `pypiIndexUrl`), oci as
 * `docker run -i --rm` (environment passed by name with `-e`), a remote as an `http` or `sse`
 * entry. Runtime arguments go to the runtime (before the package), package arguments after it.
 */
export function toConfigEntry(
  entry: RegistryEntry,
  candidate: Candidate,
  answers: ReadonlyMap<string, Answer>,
  options: ToConfigEntryOptions = {},
): PlannedEntry {
  const missing = unanswered(candidate, answers);
  if (missing.length > 0)
    throw new RegistryError(
      RegistryErrorCode.InvalidEntry,
      `server "${entry.server.name}" needs ${missing.map((q) => q.key).join(', ')}`,
      { registry: entry.registry, server: entry.server.name, reasons: missing.map((q) => q.key) },
    );
  const secretPaths: Array<readonly (string | number)[]> = [];
  const notes: string[] = [];
  if (candidate.kind === 'remote') {
    const r = entry.server.remotes![candidate.index]!;
    const vars = isRecord(r.variables) ? r.variables : {};
    let urlSecret = false;
    const url = fill(r.url!, (name) => {
      if ((vars[name] as RegistryInput | undefined)?.isSecret === true) urlSecret = true;
      return written(answers.get(name)) ?? str((vars[name] as RegistryInput | undefined)?.default);
    });
    let parsed: URL | undefined;
    try {
      parsed = new URL(url.replace(/\$\{[A-Za-z0-9_]+\}/g, 'x'));
    } catch {}
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      throw new RegistryError(
        RegistryErrorCode.InvalidEntry,
        `server "${entry.server.name}": its remote URL ${JSON.stringify(url)} is not an http(s) URL`,
        { registry: entry.registry, server: entry.server.name },
      );
    if (urlSecret) secretPaths.push(['url']);
    const headers: Record<string, string> = {};
    for (const h of r.headers ?? []) {
      if (!isRecord(h) || typeof h.name !== 'string') continue;
      const v = inputValue(h.name, h, answers);
      if (v === undefined) continue;
      headers[h.name] = v.value;
      if (v.secret) secretPaths.push(['headers', h.name]);
    }
    return {
      kind: 'remote',
      entry: {
        type: r.type === 'sse' ? 'sse' : 'http',
        url,
        ...(Object.keys(headers).length ? { headers } : {}),
      },
      secretPaths,
      notes,
    };
  }
  const p = entry.server.packages![candidate.index]!;
  const env: Record<string, string> = {};
  for (const e of p.environmentVariables ?? []) {
    if (!isRecord(e) || typeof e.name !== 'string') continue;
    const v = inputValue(e.name, e, answers);
    if (v === undefined) continue;
    env[e.name] = v.value;
    if (v.secret) secretPaths.push(['env', e.name]);
  }
  const args: string[] = [];
  const pushArgs = (list: RegistryArgument[] | undefined) => {
    for (const a of list ?? []) {
      if (!isRecord(a)) continue;
      const v = inputValue(argumentKey(a), a, answers);
      if (a.type === 'named' && typeof a.name === 'string') {
        if (v === undefined) continue;
        args.push(a.name);
      } else if (v === undefined) continue;
      if (v.secret) secretPaths.push(['args', args.length]);
      args.push(v.value);
    }
  };
  let command: string;
  const hint = str(p.runtimeHint);
  if (p.registryType === 'npm') {
    command = 'npx';
    args.push('-y');
    // A package on another npm registry is fetched from it (`--registry`), when its URL is
    // a plain https one; else from the user's own registry setting, and said.
    if (p.registryBaseUrl && !/^https:\/\/registry\.npmjs\.org\/?$/.test(p.registryBaseUrl)) {
      const registry = registryUrl(p.registryBaseUrl);
      if (registry) args.push(`--registry=${registry}`);
      else
        notes.push(
          `the package names the registry ${JSON.stringify(p.registryBaseUrl)}, which is not a plain https URL; npx installs from your npm registry setting`,
        );
    }
    pushArgs(p.runtimeArguments);
    args.push(`${p.identifier}@${p.version}`);
  } else if (p.registryType === 'pypi') {
    command = 'uvx';
    if (options.pypiIndexUrl) args.push('--index-url', options.pypiIndexUrl);
    pushArgs(p.runtimeArguments);
    args.push(`${p.identifier}==${p.version}`);
    if (p.registryBaseUrl && !/^https:\/\/pypi\.org\/?$/.test(p.registryBaseUrl))
      notes.push(
        `the package is published on ${p.registryBaseUrl}; uvx installs from ${options.pypiIndexUrl ? `the index ${options.pypiIndexUrl}` : 'your index setting'}`,
      );
  } else {
    command = 'docker';
    args.push('run', '-i', '--rm');
    const before = args.length;
    pushArgs(p.runtimeArguments);
    // The entry's own docker options (mounts, networks, privileges) are the publisher's: said.
    if (args.length > before)
      notes.push(`the entry gives docker these options: ${args.slice(before).join(' ')}`);
    // By name only: docker reads the value from its own environment (the entry's env), so
    // no value is on a command line that other accounts can read.
    for (const name of Object.keys(env)) args.push('-e', name);
    const image =
      /[:@]/.test(p.identifier.split('/').pop() ?? '') || !p.version
        ? p.identifier
        : `${p.identifier}:${p.version}`;
    args.push(image);
  }
  if (hint && hint !== command)
    notes.push(
      `the entry suggests running it with "${hint}"; mcpkit runs ${p.registryType} packages with ${command}`,
    );
  pushArgs(p.packageArguments);
  return {
    kind: candidate.kind,
    entry: { command, args, ...(Object.keys(env).length ? { env } : {}) },
    secretPaths,
    notes,
  };
}

/** `name@version` → its parts (a registry name has no `@`). */
export function parseServerSpec(spec: string): { name: string; version: string } {
  const at = spec.indexOf('@');
  return at < 0
    ? { name: spec, version: 'latest' }
    : { name: spec.slice(0, at), version: spec.slice(at + 1) || 'latest' };
}

/** The config entry's default name: the part after the `/` (`io.github.user/weather` → `weather`). */
export function localName(serverName: string): string {
  const last = serverName.split('/').pop() ?? serverName;
  return last.replace(/[^A-Za-z0-9_.-]/g, '-') || 'server';
}
