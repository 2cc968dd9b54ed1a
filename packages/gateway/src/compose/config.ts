import { McpkitError } from '@mcpkit/jsonrpc';
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { z } from 'zod';

/** A served name: what MCP hosts and model providers accept as a tool name. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

const argumentSchema = z
  .strictObject({
    hide: z
      .boolean()
      .optional()
      .describe(
        'Removed from the schema the client sees; `value` (when given) is sent to the backend on every call. A client that sends it is refused.',
      ),
    value: z.unknown().optional().describe('With `hide`: the value the backend always receives.'),
    default: z
      .unknown()
      .optional()
      .describe('Shown as the schema default and sent when the client leaves the argument out.'),
    rename: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/)
      .optional()
      .describe('The name the client sees; the backend still receives its own.'),
    description: z.string().optional().describe('The description the client sees.'),
  })
  .describe('A transform of one argument (by the backend’s own argument name).');

const annotationsSchema = z
  .looseObject({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .describe('Merged over the backend’s annotations (these win).');

const toolSchema = z
  .strictObject({
    name: z
      .string()
      .regex(NAME)
      .optional()
      .describe(
        'The whole name the client sees (no prefix is added). Two tools may not be given one name.',
      ),
    description: z.string().optional().describe('The description the client sees.'),
    annotations: annotationsSchema.optional(),
    arguments: z
      .record(z.string(), argumentSchema)
      .optional()
      .describe('Argument transforms, by the backend’s own argument name.'),
  })
  .describe('How one tool of this backend (by its own name) is served.');

const serverSchema = z
  .strictObject({
    prefix: z
      .union([z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), z.literal(false)])
      .optional()
      .describe(
        'Served names are `<prefix><separator><name>`; the server’s name by default; false serves its names unprefixed.',
      ),
    include: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Globs (`*`) on the backend’s own tool names: only these are served (all when absent).',
      ),
    exclude: z
      .array(z.string().min(1))
      .optional()
      .describe('Globs on the backend’s own tool names that are never served (wins over include).'),
    tags: z
      .array(z.string().regex(NAME))
      .optional()
      .describe('Tags an endpoint can select this server by.'),
    tools: z
      .record(z.string(), toolSchema)
      .optional()
      .describe('Per tool, by the backend’s own tool name.'),
  })
  .describe('How one backend (by its name in the MCP config) is served.');

const toolPatternSchema = z.union([
  z.string().min(1).describe('A glob on the tool’s own name, on every selected server.'),
  z
    .strictObject({
      server: z.string().min(1).describe('A glob on the server name.'),
      tool: z.string().min(1).describe('A glob on that server’s own tool name.'),
    })
    .describe('A (server, tool) pair of globs.'),
]);

const endpointSchema = z
  .strictObject({
    description: z.string().optional(),
    servers: z
      .array(z.string().min(1))
      .optional()
      .describe('Servers served here (with those of `tags`); every server when neither is given.'),
    tags: z
      .array(z.string().regex(NAME))
      .optional()
      .describe('Servers with any of these tags are served here.'),
    tools: z
      .array(toolPatternSchema)
      .optional()
      .describe(
        'Only the tools matching one of these are served (all of the servers’ when absent).',
      ),
    mode: z
      .enum(['all', 'search'])
      .optional()
      .describe(
        '`all` (default): the tools are listed. `search`: the endpoint serves a search tool and a call-by-name tool instead (see SERVE.md, "Search mode").',
      ),
  })
  .describe('A virtual endpoint, served at /mcp/<name> (over stdio: --endpoint <name>).');

const scopeListSchema = z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)); // RFC 6749 scope-token

const authSchema = z
  .strictObject({
    issuers: z
      .array(z.url({ protocol: /^https?$/ }))
      .min(1)
      .optional()
      .describe(
        'The authorization servers whose access tokens are accepted (issuer identifiers; their keys are found through RFC 8414 / OpenID discovery). With `introspection`, the gateway is an OAuth resource server; without either, only `static` applies.',
      ),
    static: z
      .strictObject({
        subject: z
          .string()
          .regex(/^[\x21-\x7e]{1,128}$/)
          .describe(
            'The subject the static bearer token’s holder has: named in audit lines, matched by `access.rules[].subject`, its own rate-limit bucket (`static-token` by default). Choose one your authorization server never issues as a `sub`.',
          ),
      })
      .optional()
      .describe(
        'The static bearer token of `mcpkit serve --http` (--token, --token-file, MCPKIT_SERVE_TOKEN).',
      ),
    audience: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'The `aud` values a token may carry instead of the endpoint’s own URL (by default each endpoint, /mcp and /mcp/<name>, is a resource of its own).',
      ),
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        'The origin clients reach the gateway at (behind a TLS proxy: https://gw.example.com): the endpoints’ URLs in the metadata and the audience. By default http:// and the request’s Host.',
      ),
    scopes: scopeListSchema
      .optional()
      .describe('Scopes a token needs at every endpoint (none when absent).'),
    endpoints: z
      .record(z.string().regex(NAME), z.strictObject({ scopes: scopeListSchema }))
      .optional()
      .describe('Scopes a token needs at /mcp/<name>, instead of `scopes`.'),
    introspection: z
      .strictObject({
        url: z.url({ protocol: /^https?$/ }).describe('The RFC 7662 introspection endpoint.'),
        clientId: z
          .string()
          .min(1)
          .describe('The gateway’s client id at the authorization server.'),
        clientSecretEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .optional()
          .describe('The environment variable holding the client secret.'),
        clientSecretFile: z
          .string()
          .min(1)
          .optional()
          .describe('A file (private to its owner) holding the client secret.'),
      })
      .optional()
      .describe('Introspection for access tokens that are not JWTs (opaque tokens).'),
  })
  .describe(
    'The gateway as an OAuth 2.1 resource server (the MCP authorization spec): see SERVE.md, "Signing in".',
  );

const globList = z.array(z.string().min(1));

/** Header names a backend identity may not take: the transport's and HTTP's own. */
const RESERVED_HEADERS =
  /^(authorization|cookie|host|content-.*|accept.*|mcp-.*|last-event-id|connection|transfer-encoding|te|upgrade|proxy-.*)$/i;
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'not an HTTP header name')
  .refine((name) => !RESERVED_HEADERS.test(name), 'a header the transport sets itself');

const accessRuleSchema = z
  .strictObject({
    effect: z
      .enum(['allow', 'deny'])
      .optional()
      .describe('`allow` (default) or `deny`; a matching deny wins over every allow.'),
    subject: globList.optional().describe('Globs on the token’s subject (`sub`).'),
    clientId: globList.optional().describe('Globs on the token’s client id.'),
    group: globList
      .optional()
      .describe('Globs on the values of the group claim (`access.groupClaim`).'),
    scope: globList.optional().describe('Scopes: the rule matches a token holding any of them.'),
    endpoints: globList
      .optional()
      .describe(
        'Globs on endpoint names (`default` for /mcp without one); every endpoint when absent.',
      ),
    servers: globList.optional().describe('Globs on server names; every server when absent.'),
    tools: globList
      .optional()
      .describe(
        'Globs on the backends’ own tool names; when given, the rule covers these tools only (not the servers’ prompts and resources).',
      ),
  })
  .describe(
    'One policy rule: it matches a caller when every matcher given matches (a rule without matchers matches every caller), and covers the endpoints, servers and tools it names.',
  );

const identitySchema = z.union([
  z
    .strictObject({
      header: headerName.describe('The header carrying the caller’s subject.'),
      clientIdHeader: headerName.optional().describe('The header carrying the caller’s client id.'),
    })
    .describe('The caller’s subject (and client id) in headers on each of its calls.'),
  z
    .strictObject({
      tokenExchange: z.strictObject({
        tokenUrl: z.url().describe('The authorization server’s token endpoint.'),
        clientId: z.string().min(1),
        clientSecret: z.string().min(1),
        audience: z.string().min(1).describe('The backend’s audience.'),
        scope: z.string().optional(),
      }),
    })
    .describe(
      'RFC 8693: the caller’s token is exchanged for one with the backend’s audience (cached per caller token until it expires, never past the caller’s own), sent as the call’s bearer token.',
    ),
]);

const accessSchema = z
  .strictObject({
    rules: z
      .array(accessRuleSchema)
      .optional()
      .describe('Policy rules; once any is given, whatever no rule allows is refused.'),
    groupClaim: z
      .string()
      .min(1)
      .optional()
      .describe('The token claim holding the caller’s groups (`groups` by default).'),
    rateLimit: z
      .strictObject({
        rate: z.number().positive().describe('Calls per second, sustained.'),
        burst: z.number().int().positive().describe('Calls at once (the bucket’s size).'),
      })
      .optional()
      .describe('A token bucket per subject for forwarded calls.'),
    audit: z
      .strictObject({
        file: z.string().min(1).optional().describe('Append one JSON line per call (mode 0600).'),
        stdout: z.boolean().optional().describe('Write the lines to stdout (HTTP only).'),
        arguments: z.boolean().optional().describe('Include each call’s arguments.'),
        required: z
          .boolean()
          .optional()
          .describe(
            'Fail closed: while the audit file cannot be written (disk full, folder gone), every call is refused (-32040, reason `audit-failing`). By default calls go on, and the failure is reported on stderr once and shown in /healthz.',
          ),
      })
      .optional()
      .describe('The audit log: one JSON line per forwarded call.'),
    identity: z
      .record(z.string(), identitySchema)
      .optional()
      .describe('Per server: how the backend is told who calls (never the caller’s own token).'),
  })
  .describe('Who may list and call what, rate limits, the audit log, upstream identity.');

const storeSchema = z
  .strictObject({
    redis: z
      .string()
      .regex(/^(?:rediss?:\/\/|unix:\/\/\/)/, 'a redis://, rediss:// or unix:/// URL')
      .optional()
      .describe(
        'The Redis every replica shares: `redis://[:password@]host:port/db`, `rediss://…` (TLS) or `unix:///path/to/redis.sock` (`--redis` and MCPKIT_REDIS_URL come first). Needs the @mcpkit/gateway-redis package.',
      ),
    prefix: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'The prefix of every key and channel (`mcpkit:`): one per deployment sharing a Redis.',
      ),
    heartbeatMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .optional()
      .describe(
        'How long a replica’s heartbeat lasts (5000 ms): a call resumed on another replica is failed about this long after its replica dies.',
      ),
  })
  .describe(
    'HTTP only: where replicas of this gateway share their 2025 sessions (records, event logs, the per-session bus). Read at start; a reload does not change it.',
  );

const limitsSchema = z
  .strictObject({
    maxSessionsPerClient: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe(
        '2025 sessions one client address may hold at once (100); more get 429. Behind a load balancer every client has its address: raise it to what the balancer carries.',
      ),
    maxConnectionsPerAddress: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe(
        'HTTP connections open at once from one address (256); one more is closed. Behind a load balancer, its connections to this replica.',
      ),
    maxConnections: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('HTTP connections open at once in all (the server listener’s default).'),
  })
  .describe('HTTP only: per-address and total caps of the listener. Read at start.');

export const gatewayConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    servers: z.record(z.string(), serverSchema).optional(),
    endpoints: z
      .record(z.string().regex(NAME), endpointSchema)
      .optional()
      .describe('Virtual endpoints by name (`[A-Za-z0-9_-]{1,64}`).'),
    default: z
      .string()
      .optional()
      .describe('The endpoint /mcp serves (and stdio without --endpoint); everything when absent.'),
    auth: authSchema.optional(),
    access: accessSchema.optional(),
    store: storeSchema.optional(),
    limits: limitsSchema.optional(),
  })
  .describe('mcpkit gateway configuration (gateway.jsonc)');

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type ServerComposition = NonNullable<GatewayConfig['servers']>[string];
export type ToolComposition = NonNullable<ServerComposition['tools']>[string];
export type ArgumentTransform = NonNullable<ToolComposition['arguments']>[string];
export type EndpointConfig = NonNullable<GatewayConfig['endpoints']>[string];
export type ToolPattern = NonNullable<EndpointConfig['tools']>[number];
export type GatewayAuthConfig = NonNullable<GatewayConfig['auth']>;
export type AccessConfig = NonNullable<GatewayConfig['access']>;
export type AccessRule = NonNullable<AccessConfig['rules']>[number];
export type StoreConfig = NonNullable<GatewayConfig['store']>;
export type IdentityConfig = NonNullable<AccessConfig['identity']>[string];

/** The JSON Schema of the gateway config file, generated from the zod schema. */
export function gatewayConfigJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(gatewayConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >),
    title: 'mcpkit gateway configuration',
  };
}

/** One problem of a gateway config: where (JSON path, 1-based line and column) and what. */
export interface GatewayConfigIssue {
  /** The key path, `servers.notes.tools.echo.arguments.path`. */
  path: string;
  line: number;
  column: number;
  message: string;
}

/** A gateway config that cannot be used: the file, the first problem's place, and all problems. */
export class GatewayConfigError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.GatewayConfigError';
  override readonly name: string = 'GatewayConfigError';
  readonly file: string;
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly issues: readonly GatewayConfigIssue[];
  constructor(file: string, issues: readonly GatewayConfigIssue[]) {
    const first = issues[0] ?? { path: '', line: 1, column: 1, message: 'invalid' };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(
      'MCPKIT_GATEWAY_CONFIG_INVALID',
      `gateway config ${file}, line ${first.line}, column ${first.column}${first.path ? `, ${first.path}` : ''}: ${first.message}${more}`,
    );
    this.file = String(file);
    this.path = first.path;
    this.line = first.line;
    this.column = first.column;
    this.issues = Array.isArray(issues) ? issues : [];
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart + 1 };
}

/** The value of a parse tree, objects without a prototype (a `__proto__` key is a plain key). */
function build(node: Node): unknown {
  if (node.type === 'object') {
    const out: Record<string, unknown> = Object.create(null);
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? [];
      if (key && typeof key.value === 'string') out[key.value] = value ? build(value) : undefined;
    }
    return out;
  }
  if (node.type === 'array') return (node.children ?? []).map(build);
  return node.value;
}

/** The node of a key path: the property's key when the last step is a key, else the value. */
function locate(tree: Node, path: ReadonlyArray<PropertyKey>): Node {
  let node: Node = tree;
  let at: Node = tree;
  for (const step of path) {
    if (node.type === 'object') {
      const property = node.children?.find((p) => p.children?.[0]?.value === step);
      if (!property?.children?.[1]) return at;
      at = property.children[0]!;
      node = property.children[1];
    } else if (node.type === 'array' && typeof step === 'number') {
      const child = node.children?.[step];
      if (!child) return at;
      at = child;
      node = child;
    } else return at;
  }
  return at;
}

const showPath = (path: ReadonlyArray<PropertyKey>) =>
  path
    .map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i === 0 ? '' : '.'}${String(s)}`))
    .join('');

export interface ParseGatewayConfigOptions {
  /** Named in errors (a path, or any label). */
  file: string;
  /** The MCP config's server names: a key or endpoint naming another one is an error. */
  servers?: readonly string[];
}

/**
 * Reads a gateway config (JSON with comments and trailing commas) and checks it against the
 * schema and its own rules: every problem with its key path, line and column. Throws a
 * `GatewayConfigError` when there is any.
 */
export function parseGatewayConfig(
  text: string,
  options: ParseGatewayConfigOptions,
): GatewayConfig {
  const { file } = options;
  const syntax: ParseError[] = [];
  const tree = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  if (syntax.length > 0 || !tree) {
    const e = syntax[0];
    const where = lineColumn(text, e?.offset ?? 0);
    throw new GatewayConfigError(file, [
      {
        path: '',
        ...where,
        message: e ? `invalid JSON: ${printParseErrorCode(e.error)}` : 'the file is empty',
      },
    ]);
  }
  const issues: GatewayConfigIssue[] = [];
  const report = (path: ReadonlyArray<PropertyKey>, message: string) => {
    const node = locate(tree, path);
    issues.push({ path: showPath(path), ...lineColumn(text, node.offset), message });
  };
  const parsed = gatewayConfigSchema.safeParse(build(tree));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys')
        for (const key of issue.keys) report([...issue.path, key], `unknown key "${key}"`);
      else report(issue.path, issue.message);
    }
    throw new GatewayConfigError(file, issues);
  }
  checkRules(parsed.data, options.servers, report);
  if (issues.length > 0) throw new GatewayConfigError(file, issues);
  return parsed.data;
}

/** What the schema cannot say: combinations, unknown servers, one name for two tools. */
function checkRules(
  config: GatewayConfig,
  known: readonly string[] | undefined,
  report: (path: ReadonlyArray<PropertyKey>, message: string) => void,
): void {
  const servers = config.servers ?? {};
  const exists = (name: string) => known === undefined || known.includes(name);
  const renamed = new Map<string, Array<{ server: string; tool: string }>>();
  const prefixes = new Map<string, string>();
  for (const [server, sc] of Object.entries(servers)) {
    if (!exists(server))
      report(['servers', server], `no server named "${server}" in the MCP config`);
    if (typeof sc.prefix === 'string') {
      const other = prefixes.get(sc.prefix);
      if (other)
        report(
          ['servers', server, 'prefix'],
          `prefix "${sc.prefix}" is also the prefix of server "${other}"`,
        );
      else prefixes.set(sc.prefix, server);
    }
    for (const [tool, tc] of Object.entries(sc.tools ?? {})) {
      if (tc.name !== undefined)
        renamed.set(tc.name, [...(renamed.get(tc.name) ?? []), { server, tool }]);
      const shown = new Map<string, string>();
      for (const [arg, t] of Object.entries(tc.arguments ?? {})) {
        const at = ['servers', server, 'tools', tool, 'arguments', arg];
        const has = (key: string) => Object.hasOwn(t, key);
        if (has('value') && t.hide !== true)
          report(
            [...at, 'value'],
            '"value" needs "hide": true (use "default" for a visible argument)',
          );
        if (t.hide === true)
          for (const key of ['default', 'rename', 'description'])
            if (has(key)) report([...at, key], `"${key}" means nothing for a hidden argument`);
        if (t.hide !== true) {
          const name = t.rename ?? arg;
          const other = shown.get(name);
          if (other !== undefined)
            report(
              [...at, t.rename !== undefined ? 'rename' : 'hide'],
              `arguments "${other}" and "${arg}" would both be shown as "${name}"`,
            );
          shown.set(name, arg);
        }
      }
    }
  }
  for (const [name, where] of renamed)
    if (where.length > 1) {
      const { server, tool } = where[1]!;
      report(
        ['servers', server, 'tools', tool, 'name'],
        `tools ${where.map((w) => `"${w.tool}" of server "${w.server}"`).join(' and ')} are all named "${name}"`,
      );
    }
  const endpoints = config.endpoints ?? {};
  for (const [name, ep] of Object.entries(endpoints))
    (ep.servers ?? []).forEach((server, i) => {
      if (!exists(server))
        report(['endpoints', name, 'servers', i], `no server named "${server}" in the MCP config`);
    });
  for (const server of Object.keys(config.access?.identity ?? {}))
    if (!exists(server))
      report(['access', 'identity', server], `no server named "${server}" in the MCP config`);
  if (config.access?.audit?.file !== undefined && config.access.audit.stdout)
    report(['access', 'audit', 'stdout'], 'give "file" or "stdout", not both');
  if (config.default !== undefined && !Object.hasOwn(endpoints, config.default))
    report(['default'], `no endpoint named "${config.default}"`);
  const auth = config.auth;
  for (const name of Object.keys(auth?.endpoints ?? {}))
    if (!Object.hasOwn(endpoints, name))
      report(['auth', 'endpoints', name], `no endpoint named "${name}"`);
  if (auth !== undefined && auth.issuers === undefined && auth.introspection === undefined)
    for (const key of ['audience', 'publicUrl', 'scopes', 'endpoints'] as const)
      if (auth[key] !== undefined)
        report(['auth', key], `"${key}" needs "issuers" or "introspection" (OAuth access tokens)`);
  const introspection = auth?.introspection;
  if (
    introspection &&
    (introspection.clientSecretEnv === undefined) === (introspection.clientSecretFile === undefined)
  )
    report(
      ['auth', 'introspection'],
      'give the client secret as exactly one of clientSecretEnv and clientSecretFile',
    );
  if (auth?.publicUrl !== undefined && new URL(auth.publicUrl).pathname !== '/')
    report(['auth', 'publicUrl'], 'an origin only (scheme, host and port), without a path');
}
