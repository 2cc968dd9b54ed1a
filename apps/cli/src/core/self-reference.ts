import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LoadResult, ResolvedServer } from '@mcpkit/config';
import { sha256Hex } from '@mcpkit/config/internal';
import { allFlags } from '../commands/flag-table.js';

/**
 * A gateway never reaches itself. An MCP host's config that lists `mcpkit serve` (SERVE.md's
 * own Claude Desktop snippet), imported into mcpkit, makes `mcpkit serve` start
 * `mcpkit serve`, which starts it again: dozens of processes a second until memory runs
 * out. Two guards:
 *
 * - statically, an entry that runs this CLI's `serve` (`mcpkit serve`, `node …/bin.js
 *   serve`, `npx mcpkit serve`, …) is marked `skipped` with the reason, for every command:
 *   never started, shown as such by `servers`, `list` and `serve`;
 * - at run time, for what cannot be seen in an entry (`sh -c '… serve'`, a wrapper
 *   script), `serve` gives its children a marker, MCPKIT_GATEWAY_CHAIN, the identities of
 *   the gateways above them; a serve that finds its own identity there, or a chain already
 *   MAX_GATEWAY_DEPTH long, refuses to start (that backend fails, its parent keeps the rest).
 */
export const GATEWAY_CHAIN_VARIABLE = 'MCPKIT_GATEWAY_CHAIN';

/**
 * The most gateways one inside another. A gateway of gateways (a host → a personal gateway
 * → a team's gateway) is two; four leaves room for one more level each side, while a loop
 * that evades the identity check (each level started with other flags) stops after four
 * levels instead of growing until the machine gives out.
 */
export const MAX_GATEWAY_DEPTH = 4;

export const SELF_REASON =
  'it runs "mcpkit serve", this gateway itself: a gateway that starts itself starts itself again, without end';

/** Package runners that run a package's bin: the subcommands that do, and none for npx. */
const RUNNERS: Record<string, readonly string[]> = {
  npx: [],
  pnpx: [],
  bunx: [],
  npm: ['exec', 'x'],
  pnpm: ['dlx', 'exec'],
  yarn: ['dlx', 'exec'],
  bun: ['x'],
};

const NODES = new Set(['node', 'nodejs']);

/** A command's name without its folder and a Windows extension, lowercased. */
function commandName(command: string): string {
  return path
    .basename(command.replaceAll('\\', '/'))
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|ps1)$/, '');
}

function realpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** This CLI's own bins (its built `dist/bin.cjs` and `dist/bin.js`), for `node <bin> serve`. */
function ownBins(): Set<string> {
  const bins = new Set<string>();
  bins.add(realpath(fileURLToPath(new URL('./bin.cjs', import.meta.url))));
  bins.add(realpath(fileURLToPath(new URL('./bin.js', import.meta.url))));
  if (process.argv[1]) bins.add(realpath(process.argv[1]));
  return bins;
}

/** A script that is this CLI: its bin, or an installed copy of the package (`mcpkit/dist/bin.cjs` or `bin.js`, `.bin/mcpkit`). */
function isCliScript(script: string, cwd: string, bins: Set<string>): boolean {
  const file = realpath(path.resolve(cwd, script));
  if (bins.has(file)) return true;
  const parts = file.split(path.sep);
  const n = parts.length;
  return (
    ((parts[n - 1] === 'bin.cjs' || parts[n - 1] === 'bin.js') &&
      parts[n - 2] === 'dist' &&
      parts[n - 3] === 'mcpkit') ||
    (parts[n - 1] === 'mcpkit' && parts[n - 2] === '.bin')
  );
}

/** The arguments after the leading flags (`-y`, `--yes`, `--silent`). */
function afterFlags(args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-') && args[i] !== '--') i++;
  if (args[i] === '--') i++;
  return args.slice(i);
}

/** The CLI's arguments when `command args` runs this CLI, else undefined. */
function cliArguments(
  command: string,
  args: readonly string[],
  cwd: string,
  bins: Set<string>,
): string[] | undefined {
  const name = commandName(command);
  if (name === 'mcpkit') return [...args];
  if (NODES.has(name) || realpath(command) === realpath(process.execPath)) {
    const [script, ...rest] = afterFlags(args);
    return script !== undefined && isCliScript(script, cwd, bins) ? rest : undefined;
  }
  const subcommands = RUNNERS[name];
  if (!subcommands) return undefined;
  let words = afterFlags(args);
  if (subcommands.length > 0) {
    if (!subcommands.includes(words[0] ?? '')) return undefined;
    words = afterFlags(words.slice(1));
  }
  const [spec, ...rest] = words;
  if (spec === undefined || !/^mcpkit(@[^\s/]*)?$/.test(spec)) return undefined;
  return rest[0] === '--' ? rest.slice(1) : rest;
}

/** Whether the CLI, given these arguments, runs `serve` (read as the CLI reads them). */
function runsServe(cliArgs: readonly string[]): boolean {
  try {
    const { positionals } = parseArgs({
      args: [...cliArgs],
      options: allFlags,
      allowPositionals: true,
      strict: false,
    });
    return positionals[0] === 'serve';
  } catch {
    return false;
  }
}

/**
 * Whether a server entry runs this CLI's gateway (`serve`). Pure but for resolving the
 * entry's script path (symlinks) to compare it with this CLI's bin.
 */
export function runsThisGateway(
  server: Pick<ResolvedServer, 'config'>,
  cwd: string,
  bins: Set<string> = ownBins(),
): boolean {
  const config = server.config as { type?: string; command?: unknown; args?: unknown };
  if ((config.type ?? 'stdio') !== 'stdio' || typeof config.command !== 'string') return false;
  const args = Array.isArray(config.args)
    ? config.args.filter((a): a is string => typeof a === 'string')
    : [];
  const cliArgs = cliArguments(config.command, args, cwd, bins);
  return cliArgs !== undefined && runsServe(cliArgs);
}

/** The load result with every enabled entry that runs this gateway marked `skipped`. */
export function skipSelfReferences(
  result: LoadResult,
  cwdOf: (server: ResolvedServer) => string,
): LoadResult {
  const bins = ownBins();
  let changed = false;
  const servers = result.servers.map((s) => {
    if (s.status !== 'enabled' || !runsThisGateway(s, cwdOf(s), bins)) return s;
    changed = true;
    return { ...s, status: 'skipped' as const, reason: SELF_REASON };
  });
  return changed ? { ...result, servers } : result;
}

/**
 * A gateway's identity: the servers it serves (names and entries as resolved). A gateway
 * started below another with the same servers would start the same children again.
 */
export function gatewayIdentity(servers: readonly ResolvedServer[]): string {
  const entries = [...servers]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((s) => [s.name, s.config]);
  return sha256Hex(JSON.stringify(entries)).slice(0, 16);
}

/** The most of the variable read: it is the environment's, so bounded like any input. */
const CHAIN_MAX_CHARS = 4096;

/**
 * What the marker says about this gateway: `ok` with the chain to give its children, or
 * why it must not start. The variable is read as untrusted text: bounded, split on commas;
 * every piece counts towards the depth, whatever it holds.
 */
export function checkGatewayChain(
  value: string | undefined,
  identity: string,
): { ok: true; next: string } | { ok: false; reason: string } {
  const chain = (value ?? '')
    .slice(0, CHAIN_MAX_CHARS)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (chain.includes(identity))
    return {
      ok: false,
      reason: `this gateway already runs above itself (${GATEWAY_CHAIN_VARIABLE} holds its identity ${identity}): one of its servers starts "mcpkit serve" with the same servers again, which would repeat without end; remove that entry from the config`,
    };
  if (chain.length >= MAX_GATEWAY_DEPTH)
    return {
      ok: false,
      reason: `${chain.length} gateways already run one inside another (${GATEWAY_CHAIN_VARIABLE}); mcpkit allows at most ${MAX_GATEWAY_DEPTH}: an entry that starts "mcpkit serve" probably starts it again`,
    };
  return { ok: true, next: [...chain, identity].join(',') };
}
