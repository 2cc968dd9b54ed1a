import type { EndpointConfig, GatewayConfig, ToolComposition } from './config.js';

/**
 * What one endpoint serves of a gateway config: which servers (their tools, prompts and
 * resources), which of their tools, under which prefix, and each tool's composition. Tool
 * patterns are always matched on the (server, tool) pair, each glob on its own part.
 */
export interface CompositionView {
  /** The endpoint (undefined: the default one). */
  readonly endpoint: string | undefined;
  /** `search` when the endpoint asks for search mode. */
  readonly mode: 'all' | 'search';
  /** Whether a server is served here at all. */
  serves(server: string): boolean;
  /** Whether a server's tool (by its own name) is served here. */
  allowsTool(server: string, tool: string): boolean;
  /** The server's prefix: its name by default (`undefined`), another string, or none (`false`). */
  prefixOf(server: string): string | false | undefined;
  /** The composition of one tool (by the backend's own name). */
  tool(server: string, tool: string): ToolComposition | undefined;
  /** The whole name a tool is given, when the config gives one. */
  nameOf(server: string, tool: string): string | undefined;
}

/** `*` matches any run of characters (none included); everything else is literal. */
export function globMatcher(glob: string): (value: string) => boolean {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  const re = new RegExp(`^${body}$`, 's');
  return (value) => re.test(value);
}

const anyOf = (globs: readonly string[] | undefined) => {
  const matchers = (globs ?? []).map(globMatcher);
  return (value: string) => matchers.some((m) => m(value));
};

/** Everything, the way a gateway without a config serves it. */
export const everything: CompositionView = {
  endpoint: undefined,
  mode: 'all',
  serves: () => true,
  allowsTool: () => true,
  prefixOf: () => undefined,
  tool: () => undefined,
  nameOf: () => undefined,
};

/**
 * The view of one endpoint of a config: `endpoint` names one of `config.endpoints`;
 * undefined is the default endpoint (`config.default`, or every server).
 */
export function compositionView(
  config: GatewayConfig,
  endpoint?: string | undefined,
): CompositionView {
  const name = endpoint ?? config.default;
  const ep: EndpointConfig | undefined = name === undefined ? undefined : config.endpoints?.[name];
  if (name !== undefined && !ep) throw new RangeError(`no endpoint named "${name}"`);
  const servers = config.servers ?? {};
  const own = (server: string) => (Object.hasOwn(servers, server) ? servers[server] : undefined);
  const listed = new Set(ep?.servers ?? []);
  const tags = new Set(ep?.tags ?? []);
  const selectsServers = ep?.servers !== undefined || ep?.tags !== undefined;
  const serves = (server: string) =>
    !selectsServers || listed.has(server) || (own(server)?.tags ?? []).some((tag) => tags.has(tag));
  const patterns = (ep?.tools ?? []).map((p) =>
    typeof p === 'string'
      ? { server: () => true, tool: globMatcher(p) }
      : { server: globMatcher(p.server), tool: globMatcher(p.tool) },
  );
  const filters = new Map<
    string,
    { include: (t: string) => boolean; exclude: (t: string) => boolean }
  >();
  const filterOf = (server: string) => {
    let f = filters.get(server);
    if (!f) {
      const sc = own(server);
      const include = sc?.include === undefined ? () => true : anyOf(sc.include);
      f = { include, exclude: anyOf(sc?.exclude) };
      filters.set(server, f);
    }
    return f;
  };
  const toolOf = (server: string, tool: string) => {
    const tools = own(server)?.tools;
    return tools && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  };
  return {
    endpoint: name,
    mode: ep?.mode ?? 'all',
    serves,
    allowsTool: (server, tool) => {
      if (!serves(server)) return false;
      const f = filterOf(server);
      if (!f.include(tool) || f.exclude(tool)) return false;
      return patterns.length === 0 || patterns.some((p) => p.server(server) && p.tool(tool));
    },
    prefixOf: (server) => own(server)?.prefix,
    tool: toolOf,
    nameOf: (server, tool) => toolOf(server, tool)?.name,
  };
}
