/**
 * A next step as the host words it: a fixed text, or a function of the server's name.
 * Each is a phrase that fits after "then" or "; " (e.g. `run "mytool restart github"`).
 */
export type ManagerHint = string | ((server: string) => string);

/**
 * The next steps the manager's messages give. The defaults name the manager's own API
 * (`reconnect()`, `authenticate()`, `MCP_TIMEOUT`, `limits.*`); a host with its own
 * commands or settings (a CLI, an editor) gives its own, so that every message tells the
 * user something they can do in that host.
 */
export interface ManagerHints {
  /** Start a server again. Default `call reconnect("<server>")`. */
  reconnect?: ManagerHint;
  /** Sign in to a server that needs it. Default: the manager's `authenticate()` or its tool. */
  signIn?: ManagerHint;
  /**
   * Sign in when the host does not allow an interactive sign-in (`auth.interactive` off).
   * Default `sign in another way, outside this host`.
   */
  signInElsewhere?: ManagerHint;
  /** Give connects more time. Default `raise MCP_TIMEOUT / limits.connectTimeoutMs`. */
  connectTimeout?: ManagerHint;
  /** Accept more output from a tool. Default `raise limits.outputBudgetChars`. */
  outputBudget?: ManagerHint;
  /** Enable a server the host disabled. Default `call enable("<server>")`. */
  hostEnable?: ManagerHint;
}

/** Every hint as a function. */
export type ResolvedHints = { readonly [K in keyof ManagerHints]-?: (server: string) => string };

export const defaultHints: ResolvedHints = Object.freeze({
  reconnect: (server: string) => `call reconnect("${server}")`,
  signIn: (server: string) =>
    `sign in with the manager's authenticate("${server}") (or its "authenticate" tool)`,
  signInElsewhere: () => 'sign in another way, outside this host',
  connectTimeout: () => 'raise MCP_TIMEOUT / limits.connectTimeoutMs',
  outputBudget: () => 'raise limits.outputBudgetChars',
  hostEnable: (server: string) => `call enable("${server}")`,
});

/** The host's hints over the defaults; a hint that throws or returns nothing uses the default. */
export function resolveHints(hints: ManagerHints | undefined): ResolvedHints {
  if (!hints) return defaultHints;
  const out = { ...defaultHints };
  for (const key of Object.keys(defaultHints) as Array<keyof ResolvedHints>) {
    const hint = hints[key];
    if (hint === undefined) continue;
    const fallback = defaultHints[key];
    out[key] =
      typeof hint === 'string'
        ? () => hint
        : (server) => {
            try {
              const text = hint(server);
              return typeof text === 'string' && text !== '' ? text : fallback(server);
            } catch {
              return fallback(server);
            }
          };
  }
  return Object.freeze(out);
}
