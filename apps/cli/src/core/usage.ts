/** What the CLI says about itself: no dependency, so that --version and --help load nothing else. */

import { VERSION } from './version.js';

export { VERSION } from './version.js';

/** The groups of `mcpkit --help`, in their order. */
export const GROUPS = {
  use: 'Using servers',
  serve: 'Serving (a gateway; see SERVE.md)',
  auth: 'Signing in',
  config: 'Configuring servers',
} as const;
export type Group = keyof typeof GROUPS;

/** One command name's help: what `mcpkit --help` shows on its line, and its own page. */
export interface CommandHelp {
  group: Group;
  /** What follows `mcpkit `: `call <server> <tool> [json | - | key=value...]`. */
  usage: string;
  /** Its line in `mcpkit --help` (with the usage, or `line` when given, in front). */
  summary: string;
  /** The left side of its line in `mcpkit --help`, when not the usage (`enable | disable <name>`). */
  line?: string;
  /** Not a line of its own in `mcpkit --help` (another name's line shows it). */
  unlisted?: boolean;
  /** A few sentences under the usage on its own page. */
  about?: string;
  /** Two or three command lines. */
  examples: readonly string[];
  /** Its own words for a flag whose general words do not fit it. */
  flagWords?: Readonly<Record<string, string>>;
}

/** A flag's argument and words, for every page that lists it. */
export const FLAG_WORDS: Readonly<Record<string, { arg?: string; words: string }>> = {
  config: { arg: '<file|json>', words: 'extra servers (dynamic scope; repeatable; later wins)' },
  'strict-config': { words: 'use only the --config servers' },
  'show-secrets': {
    words: 'print header values, credential env values and URL secrets as they are',
  },
  help: { words: 'this text (mcpkit <command> --help: that command)' },
  version: { words: 'the version' },
  json: { words: 'machine-readable output on stdout (no progress lines)' },
  timeout: {
    arg: '<ms>',
    words: "each server's connect budget and the per-request timeout (default 60000)",
  },
  'login-timeout': { arg: '<ms>', words: 'the whole sign-in, browser included (default 300000)' },
  'max-message-bytes': {
    arg: '<n>',
    words: 'the largest message a server may send (default 67108864)',
  },
  sanitize: { words: 'escape terminal controls in the result even into a pipe or a file' },
  scope: { arg: '<scope>', words: 'where it writes: local (default), project, user' },
  transport: { arg: '<t>', words: 'stdio (default), http, sse, ws' },
  env: { arg: '<K=V>', words: 'environment variable for a stdio server (repeatable)' },
  header: { arg: '<N: v>', words: 'header for a remote server (repeatable)' },
  from: {
    arg: '<host>',
    words: 'claude-desktop, claude-code, vscode, cursor, cline, windsurf or zed',
  },
  'dry-run': { words: 'print the entries (secrets redacted), write nothing' },
  all: { words: 'every project server waiting for approval' },
  server: { arg: '<name>', words: 'only this server (repeatable)' },
  verbose: { words: "show servers' stderr and warnings, each line prefixed [server]" },
  'no-progress': { words: 'no live progress lines while connecting (drawn only on a terminal)' },
  elicit: { arg: '<json>', words: 'answer the next form a server asks (elicitation) with this' },
  'no-check': {
    words: "send the arguments without checking them against the tool's input schema",
  },
  root: {
    arg: '<dir>',
    words: 'a root the servers may work in (repeatable; default: the working directory)',
  },
  'no-roots': { words: 'offer servers no roots' },
  trace: { arg: '<file>', words: 'append every JSON-RPC message (both directions) as JSON lines' },
  'no-browser': { words: 'print URLs to open (sign-in, URL elicitation); open no browser' },
  port: {
    arg: '<n>',
    words: 'mcpkit apps listens on this port of 127.0.0.1 (default: any free one)',
  },
  http: { arg: '[host:]port', words: 'serve Streamable HTTP on /mcp (default: stdio)' },
  token: {
    arg: '<t>',
    words:
      '--http: the bearer token (visible to local users in /proc; prefer --token-file or MCPKIT_SERVE_TOKEN; default: $XDG_STATE_HOME/mcpkit/serve-token, made 0600)',
  },
  separator: { arg: '<s>', words: 'between server and tool names (default "__")' },
  'no-prefix': { words: 'one server (--server): names unchanged' },
  tools: {
    arg: '<patterns>',
    words: 'allow/deny tools: "server/tool", "tool", "*" wildcards, "!" denies (repeatable)',
  },
  'sse-poll-ms': {
    arg: '<ms>',
    words: "--http, 2025-11-25: close a tool call's SSE stream after <ms>; the client resumes",
  },
  'token-file': {
    arg: '<path>',
    words: '--http: the bearer token from this file (0600: others may not read it)',
  },
  'no-auth': { words: '--http on loopback only: no token (any local process gets in; warns)' },
  'allowed-host': {
    arg: '<h>',
    words: "--http: a Host name to answer besides the bind's own (repeatable)",
  },
  'allowed-origin': {
    arg: '<o>',
    words: "--http: a browser Origin to allow besides the gateway's own (repeatable)",
  },
  search: { words: 'list two tools, search_tools and call_tool, instead of all (capped clients)' },
  'gateway-config': {
    arg: '<file>',
    words: 'prefixes, filters, renames, argument transforms, endpoints (JSONC; reloaded on change)',
  },
  redis: {
    arg: '<url>',
    words:
      '--http: share sessions with other replicas in this Redis (redis://, rediss://, unix:///; or MCPKIT_REDIS_URL)',
  },
  'replica-id': {
    arg: '<id>',
    words: "--redis: this replica's name in the store and its errors (default host:pid)",
  },
  endpoint: {
    arg: '<name>',
    words: 'serve this endpoint of the gateway config (stdio; with --http: on /mcp)',
  },
  registry: { arg: '<url>', words: 'ask this MCP Registry instead (repeatable, asked in order)' },
  limit: { arg: '<n>', words: 'at most this many entries' },
  'allow-deprecated': { words: 'install a deprecated entry (a deleted one never)' },
  store: {
    arg: 'values|refs',
    words: 'secrets as values (file written 0600) or as ${VAR} references',
  },
  use: { arg: '<kind>', words: 'npm, pypi, oci or remote (default: the first it offers)' },
  as: { arg: '<name>', words: 'the entry\'s name (default: the part after the "/")' },
  'backend-wait-ms': {
    arg: '<ms>',
    words: 'stdio: answer initialize once backends settled or after <ms> (default 5000)',
  },
};

/** The flags every command takes, listed once at the end of `mcpkit --help`. */
export const EVERYWHERE = ['config', 'strict-config', 'show-secrets', 'help', 'version'] as const;

type Shorts = Readonly<Record<string, { short?: string; type: string }>>;

function flagHead(name: string, shorts: Shorts): string {
  const short = shorts[name]?.short;
  const arg = FLAG_WORDS[name]?.arg;
  return `${short ? `-${short}, ` : '    '}--${name}${arg ? ` ${arg}` : ''}`;
}

function flagLines(names: readonly string[], shorts: Shorts, own: CommandHelp['flagWords']) {
  const heads = names.map((n) => flagHead(n, shorts));
  const width = Math.min(28, Math.max(...heads.map((h) => h.length)));
  return names.map((n, i) => {
    const words = own?.[n] ?? FLAG_WORDS[n]?.words ?? '';
    const head = heads[i]!;
    return head.length > width
      ? `  ${head}\n  ${' '.repeat(width)}  ${words}`
      : `  ${head.padEnd(width)}  ${words}`;
  });
}

/** `mcpkit --help`: one line a command, by group; the flags every command takes. */
export function topHelp(
  commands: ReadonlyArray<readonly [name: string, help: CommandHelp]>,
  shorts: Shorts,
): string {
  const out = [`mcpkit ${VERSION} — inspect and call MCP servers`];
  out.push(
    'usage: mcpkit <command> [options]   (mcpkit <command> --help: its options and examples)',
  );
  const listed = commands.filter(([, h]) => !h.unlisted);
  const width = Math.min(30, Math.max(...listed.map(([, h]) => (h.line ?? h.usage).length)));
  for (const group of Object.keys(GROUPS) as Group[]) {
    const lines = listed.filter(([, h]) => h.group === group);
    if (lines.length === 0) continue;
    out.push('', `${GROUPS[group]}:`);
    for (const [, h] of lines) {
      const left = h.line ?? h.usage;
      out.push(
        left.length > width
          ? `  ${left}\n  ${' '.repeat(width)}  ${h.summary}`
          : `  ${left.padEnd(width)}  ${h.summary}`,
      );
    }
  }
  out.push('', 'Options of every command:', ...flagLines(EVERYWHERE, shorts, undefined));
  return `${out.join('\n')}\n`;
}

/** `mcpkit <command> --help`: its usage, what it does, its own options, examples. */
export function commandHelp(help: CommandHelp, flags: readonly string[], shorts: Shorts): string {
  const out = [
    `usage: mcpkit ${help.usage}`,
    '',
    `${help.summary[0]!.toUpperCase()}${help.summary.slice(1)}.`,
  ];
  if (help.about) out.push(help.about);
  const own = flags.filter((f) => !(EVERYWHERE as readonly string[]).includes(f));
  if (own.length > 0) out.push('', 'Options:', ...flagLines(own, shorts, help.flagWords));
  if (help.examples.length > 0) out.push('', 'Examples:', ...help.examples.map((e) => `  ${e}`));
  out.push(
    '',
    `Every command also takes -c/--config, --strict-config and --show-secrets (see "mcpkit --help").`,
  );
  return `${out.join('\n')}\n`;
}

/** A usage error: one line (node:util's parser writes several), and where to read more. */
export function usageLine(message: string, command?: string): string {
  return `mcpkit: ${message.replace(/\s*\n\s*/g, ' ')} (see "mcpkit ${command ? `${command} ` : ''}--help")\n`;
}
