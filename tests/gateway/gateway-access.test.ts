import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import {
  type AccessConfig,
  AccessControl,
  AccessErrorCode,
  AuditFile,
  accessErrorStatus,
  createGatewayEndpoints,
  GatewayConfigError,
  GatewayEndpoints,
  parseGatewayConfig,
} from '@mcpkit/gateway';
import type { AuthInfo, RpcError } from '@mcpkit/jsonrpc';
import { McpManager } from '@mcpkit/manager';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { challengeParams } from './oauth-support.js';

/**
 * #24 items 2–5 through the library: a real HTTP backend built on `@mcpkit/server` (its
 * `whoami` tool answers with the identity headers its requests carried), a real manager, the
 * gateway with an `AccessControl` from a parsed gateway config, and our McpClient over real
 * HTTP. The callers' identities come from the front listener's `authInfo` option, which maps
 * a test header to an `AuthInfo` — standing in for the JWT verification of item 1, which
 * fills the same field.
 */
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-access-'));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  rmSync(home, { recursive: true, force: true });
});

const CALLER_TOKEN = (who: string) => `caller-token-of-${who}-7f3e9a`;
const callers: Record<string, AuthInfo> = Object.fromEntries(
  (
    [
      ['ada', 'app-a', ['notes:read'], ['readers']],
      ['bob', 'app-b', ['notes:read', 'notes:write'], ['writers']],
      ['eve', 'app-e', ['notes:read'], ['contractors']],
      ['nobody', 'app-n', [], []],
    ] as const
  ).map(([subject, clientId, scopes, groups]) => [
    subject,
    {
      kind: 'jwt',
      subject,
      clientId,
      scopes,
      expiresAt: undefined,
      claims: { sub: subject, groups },
      token: CALLER_TOKEN(subject),
    },
  ]),
);
// The static token's holder, given the subject "ada" (the listener's `tokenSubject`): the
// same name as a token's `sub`, and still a caller of its own for the rate limit.
callers['static-ada'] = {
  kind: 'static-token',
  subject: 'ada',
  clientId: undefined,
  scopes: [],
  expiresAt: undefined,
  claims: {},
  token: 'the-static-token-0123456789',
};
// Another token of ada's, through another client: a caller of its own for a token exchange.
callers['ada-other'] = { ...callers.ada!, clientId: 'app-o', token: CALLER_TOKEN('ada-other') };

/** A backend on 127.0.0.1: `read_notes`, `write_notes`, `whoami` (its request's identity headers). */
async function backend(name: string): Promise<URL> {
  const server = new McpServer({ info: { name, version: '1.0.0' } });
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
  server.registerTool('read_notes', { inputSchema: { type: 'object' } }, () => text('notes'));
  server.registerTool('write_notes', { inputSchema: { type: 'object' } }, () => text('written'));
  server.registerTool('whoami', { inputSchema: { type: 'object' } }, (_args, ctx) =>
    text(JSON.stringify(ctx.authInfo?.claims ?? {})),
  );
  const listener = await listenStreamableHttp(server, {
    // What this backend's requests carried, for `whoami`: read from each POST's headers.
    authInfo: (req: IncomingMessage) => ({
      kind: 'headers',
      subject: undefined,
      clientId: undefined,
      scopes: [],
      expiresAt: undefined,
      claims: {
        subject: req.headers['x-mcp-subject'] ?? null,
        client: req.headers['x-mcp-client'] ?? null,
        authorization: req.headers.authorization ?? null,
      },
      token: '',
    }),
  });
  cleanups.push(async () => {
    await listener.close();
    await server.close();
  });
  return listener.url;
}

interface Front {
  url: URL;
  /** The status and headers of every POST the front listener answered. */
  answers: Array<{ status: number; headers: Record<string, unknown> }>;
  access: AccessControl;
  endpoints: GatewayEndpoints;
}

/** The gateway over `backends`, with `access` from a gateway config, behind a listener. */
async function front(
  backends: Record<string, URL>,
  access: AccessConfig,
  audit?: AuditFile,
  http: { errorStatus: boolean; toolSearch?: boolean } = { errorStatus: true },
): Promise<Front> {
  const config = parseGatewayConfig(JSON.stringify({ access }), {
    file: 'access.jsonc',
    servers: Object.keys(backends),
  });
  const entries = Object.entries(backends).map(
    ([name, url]) =>
      ({
        name,
        scope: 'user',
        source: 'test',
        config: { type: 'http', url: url.href } as ServerConfig,
        status: 'enabled',
        reason: 'test entry',
        policy: { allowed: true },
      }) as ResolvedServer,
  );
  let endpoints: GatewayEndpoints | undefined;
  const manager = new McpManager({
    servers: entries,
    clientInfo: { name: 'access-test', version: '0.0.0' },
    handlers: GatewayEndpoints.handlers(() => endpoints),
    env: { PATH: process.env.PATH ?? '', HOME: home },
    home,
  });
  const control = new AccessControl({ config: config.access, audit });
  endpoints = createGatewayEndpoints({
    manager,
    servers: Object.keys(backends),
    info: { name: 'access-gateway', version: '0.0.0' },
    callTimeoutMs: 30_000,
    config,
    access: control,
    ...(http.toolSearch ? { toolSearch: true } : {}),
  });
  await manager.connectAll();
  await endpoints.start();
  const answers: Front['answers'] = [];
  const listener = await listenStreamableHttp(endpoints.default.server, {
    authInfo: (req) => callers[String(req.headers['x-test-caller'])],
    // What listenHttp gives the handler: refusals alone on their POST as 403 / 429.
    // (the caller's scopes asked for again; the metadata URL, which listenHttp makes from the
    // request, left out here).
    ...(http.errorStatus
      ? {
          errorStatus: (error, req) =>
            accessErrorStatus(error, {
              grantedScopes: callers[String(req?.headers['x-test-caller'])]?.scopes ?? [],
            }),
        }
      : {}),
    // Notes each POST's status line and headers as they are written (the real response).
    intercept: (req, res) => {
      if (req.method !== 'POST') return false;
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => typeof res;
      res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
        answers.push({ status, headers: headers ?? {} });
        return writeHead(status, headers);
      }) as typeof res.writeHead;
      return false;
    },
  });
  cleanups.push(async () => {
    await listener.close();
    await endpoints!.close();
    await manager.close();
    control.close();
  });
  return { url: listener.url, answers, access: control, endpoints };
}

async function clientOf(url: URL, who: string | undefined, version = '2025-11-25') {
  const client = new McpClient({ protocolVersion: version, eraCache: false });
  await client.connect(
    new StreamableHttpTransport({ url, ...(who ? { headers: { 'x-test-caller': who } } : {}) }),
  );
  cleanups.push(() => client.close());
  return client;
}

const names = async (client: McpClient) =>
  (await client.listTools({ fresh: true })).map((t) => t.name).sort();
const textOf = (result: { content: unknown[] }) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: RpcError) => ({ code: error.rpcCode, data: error.data as Record<string, unknown> }),
  );

const policy: AccessConfig = {
  rules: [
    { scope: ['notes:read'], tools: ['read_*', 'whoami'] },
    { scope: ['notes:write'], tools: ['write_*'] },
    { group: ['contractors'], effect: 'deny', tools: ['whoami'] },
  ],
};

describe.each(['2025-11-25', '2026-07-28'])('per-client policy (%s)', (version) => {
  let gw: Front;
  beforeAll(async () => {
    // Without `errorStatus`: the JSON-RPC error as a refusal inside a batch or stream gets it.
    gw = await front({ notes: await backend('notes') }, policy, undefined, { errorStatus: false });
  }, 60_000);

  it('two clients with different scopes list different tools from the same endpoint; a deny rule wins', async () => {
    const ada = await clientOf(gw.url, 'ada', version);
    const bob = await clientOf(gw.url, 'bob', version);
    const eve = await clientOf(gw.url, 'eve', version);
    const nobody = await clientOf(gw.url, 'nobody', version);
    expect(await names(ada)).toEqual(['notes__read_notes', 'notes__whoami']);
    expect(await names(bob)).toEqual(['notes__read_notes', 'notes__whoami', 'notes__write_notes']);
    expect(await names(eve)).toEqual(['notes__read_notes']);
    // Deny by default: no rule matches a caller without scopes, nor one without identity.
    expect(await names(nobody)).toEqual([]);
    expect(await names(await clientOf(gw.url, undefined, version))).toEqual([]);
  });

  it('a call outside the policy is refused with a JSON-RPC error naming the scope that would allow it', async () => {
    const ada = await clientOf(gw.url, 'ada', version);
    expect(textOf(await ada.callTool({ name: 'notes__read_notes' }))).toBe('notes');
    const refused = await refusal(ada.callTool({ name: 'notes__write_notes' }));
    expect(refused).toEqual({
      code: AccessErrorCode.Forbidden,
      data: expect.objectContaining({ reason: 'policy', scopes: ['notes:write'] }),
    });
    // Deny wins even though eve's scope alone would allow the tool: no scope is offered.
    const eve = await clientOf(gw.url, 'eve', version);
    expect(await refusal(eve.callTool({ name: 'notes__whoami' }))).toEqual({
      code: AccessErrorCode.Forbidden,
      data: expect.objectContaining({ reason: 'policy', scopes: [] }),
    });
  });
});

describe('search mode under a policy', () => {
  it('two callers with different scopes search the same query and find only the tools each may call', async () => {
    const gw = await front({ notes: await backend('notes') }, policy, undefined, {
      errorStatus: true,
      toolSearch: true,
    });
    const search = async (who: string) => {
      const client = await clientOf(gw.url, who);
      const result = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'notes', limit: 10 },
      });
      return (result.structuredContent as { tools: Array<{ name: string }> }).tools
        .map((t) => t.name)
        .sort();
    };
    expect(await search('bob')).toEqual([
      'notes__read_notes',
      'notes__whoami',
      'notes__write_notes',
    ]);
    expect(await search('ada')).toEqual(['notes__read_notes', 'notes__whoami']);
    // A deny rule hides a tool the scope alone would show.
    expect(await search('eve')).toEqual(['notes__read_notes']);
    expect(await search('nobody')).toEqual([]);
  });
});

describe('HTTP answers of a refusal alone on its POST', () => {
  it.each(['2025-11-25', '2026-07-28'])(
    '403 with WWW-Authenticate insufficient_scope and the scope to step up to; 429 with Retry-After (%s)',
    async (version) => {
      const gw = await front(
        { notes: await backend('notes') },
        { ...policy, rateLimit: { rate: 0.001, burst: 1 } },
      );
      const ada = await clientOf(gw.url, 'ada', version);
      // Refused by policy: no token of the bucket is taken.
      const forbidden = await ada.callTool({ name: 'notes__write_notes' }).catch((e) => e);
      expect(forbidden).toMatchObject({ status: 403 });
      // The scope that allows the call, and the one ada has: a step-up loses none.
      expect(
        challengeParams((forbidden as { wwwAuthenticate?: string }).wwwAuthenticate ?? null),
      ).toMatchObject({ error: 'insufficient_scope', scope: 'notes:read notes:write' });
      expect(gw.answers.at(-1)).toMatchObject({
        status: 403,
        headers: { 'www-authenticate': expect.stringContaining('scope="notes:read notes:write"') },
      });
      await ada.callTool({ name: 'notes__read_notes' });
      // The burst is spent: 429 with Retry-After, and the client shows the JSON-RPC error.
      const limited = await refusal(ada.callTool({ name: 'notes__read_notes' }));
      expect(limited?.code).toBe(AccessErrorCode.RateLimited);
      const answer = gw.answers.at(-1)!;
      expect(answer.status).toBe(429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    },
  );
});

describe('policy that cannot be read', () => {
  it('a gateway config whose access section does not check is refused with its place', () => {
    const bad = () =>
      parseGatewayConfig('{ "access": { "rules": [ { "scope": "notes:read" } ] } }', {
        file: 'bad.jsonc',
      });
    expect(bad).toThrow(GatewayConfigError);
    expect(() => bad()).toThrow(/access\.rules\[0\]\.scope/);
  });

  it('fails closed: nothing listed, every call refused, and the health output says so', async () => {
    const gw = await front({ notes: await backend('notes') }, policy);
    const bob = await clientOf(gw.url, 'bob');
    expect((await names(bob)).length).toBe(3);
    gw.access.failClosed('gateway config access.jsonc, line 1: invalid JSON');
    expect(await names(bob)).toEqual([]);
    expect(await refusal(bob.callTool({ name: 'notes__read_notes' }))).toEqual({
      code: AccessErrorCode.Forbidden,
      data: { reason: 'policy-unreadable' },
    });
    expect(gw.endpoints.health().access).toEqual({
      state: 'refusing',
      reason: 'gateway config access.jsonc, line 1: invalid JSON',
    });
    gw.access.configure(policy);
    expect(textOf(await bob.callTool({ name: 'notes__read_notes' }))).toBe('notes');
    expect(gw.endpoints.health().access).toEqual({ state: 'ok' });
  });
});

describe('rate limits per subject', () => {
  it.each(['2025-11-25', '2026-07-28'])(
    'the call after the burst gets a JSON-RPC error with the wait (%s); another subject is not held up',
    async (version) => {
      const gw = await front(
        { notes: await backend('notes') },
        { ...policy, rateLimit: { rate: 0.001, burst: 3 } },
      );
      const ada = await clientOf(gw.url, 'ada', version);
      for (let i = 0; i < 3; i++)
        expect(textOf(await ada.callTool({ name: 'notes__read_notes' }))).toBe('notes');
      const limited = await refusal(ada.callTool({ name: 'notes__read_notes' }));
      expect(limited?.code).toBe(AccessErrorCode.RateLimited);
      expect(limited?.data.reason).toBe('rate-limit');
      expect(limited?.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      const bob = await clientOf(gw.url, 'bob', version);
      expect(textOf(await bob.callTool({ name: 'notes__read_notes' }))).toBe('notes');
    },
  );

  it('the static token’s subject is a bucket of its own, apart from a token whose sub has the same name', async () => {
    const gw = await front(
      { notes: await backend('notes') },
      {
        rules: [...policy.rules!, { subject: ['ada'], tools: ['read_*'] }],
        rateLimit: { rate: 0.001, burst: 2 },
      },
    );
    const ada = await clientOf(gw.url, 'ada');
    const staticAda = await clientOf(gw.url, 'static-ada');
    for (let i = 0; i < 2; i++) await ada.callTool({ name: 'notes__read_notes' });
    expect((await refusal(ada.callTool({ name: 'notes__read_notes' })))?.code).toBe(
      AccessErrorCode.RateLimited,
    );
    // The policy matches the static holder by its subject; its bucket is still full.
    for (let i = 0; i < 2; i++)
      expect(textOf(await staticAda.callTool({ name: 'notes__read_notes' }))).toBe('notes');
    expect((await refusal(staticAda.callTool({ name: 'notes__read_notes' })))?.code).toBe(
      AccessErrorCode.RateLimited,
    );
  });
});

describe('audit log', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('one JSON line per call, mode 0600, with the subject and outcome; no token in the file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-audit-'));
    const file = path.join(dir, 'audit.log');
    const gw = await front(
      { notes: await backend('notes') },
      { ...policy, audit: { arguments: true } },
      new AuditFile(file),
    );
    const ada = await clientOf(gw.url, 'ada');
    const bob = await clientOf(gw.url, 'bob');
    await ada.callTool({ name: 'notes__read_notes', arguments: { q: 'x' } });
    await refusal(ada.callTool({ name: 'notes__write_notes' }));
    await bob.callTool({ name: 'notes__write_notes' });
    await ada.listTools();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => [r.subject, r.clientId, r.tool, r.outcome])).toEqual([
      ['ada', 'app-a', 'read_notes', 'ok'],
      ['ada', 'app-a', 'write_notes', 'refused'],
      ['bob', 'app-b', 'write_notes', 'ok'],
    ]);
    expect(records[0]).toMatchObject({
      endpoint: 'default',
      server: 'notes',
      method: 'tools/call',
      arguments: { q: 'x' },
      session: expect.any(String),
    });
    for (const r of records) {
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
      expect(r.requestBytes).toBeGreaterThan(0);
      expect(r.responseBytes).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(String(r.time)))).toBe(false);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const who of ['ada', 'bob']) expect(text).not.toContain(CALLER_TOKEN(who));
  });
});

describe.runIf(process.platform === 'linux')(
  'audit writes that fail (/dev/full: every write is ENOSPC)',
  () => {
    it('calls go on by default; the failure is reported once per episode and shown in the health output', async () => {
      const reported: string[] = [];
      const audit = new AuditFile('/dev/full', {
        onerror: (error, during) => reported.push(`${during} ${error.code}`),
      });
      const gw = await front({ notes: await backend('notes') }, policy, audit);
      const ada = await clientOf(gw.url, 'ada');
      for (let i = 0; i < 3; i++)
        expect(textOf(await ada.callTool({ name: 'notes__read_notes' }))).toBe('notes');
      expect(reported).toEqual(['write ENOSPC']);
      expect(gw.endpoints.health().access).toEqual({
        state: 'ok',
        audit: { state: 'failing', code: 'ENOSPC', during: 'write', since: expect.any(String) },
      });
    });

    it('audit.required: from the failed write on, every call is refused (fail closed), and the health output says why', async () => {
      const reported: string[] = [];
      const audit = new AuditFile('/dev/full', { onerror: (error) => reported.push(error.code!) });
      const gw = await front(
        { notes: await backend('notes') },
        { ...policy, audit: { required: true } },
        audit,
      );
      const ada = await clientOf(gw.url, 'ada');
      // Its line is written (and fails) before its answer is sent; the call itself was made.
      expect(textOf(await ada.callTool({ name: 'notes__read_notes' }))).toBe('notes');
      for (let i = 0; i < 2; i++)
        expect(await refusal(ada.callTool({ name: 'notes__read_notes' }))).toEqual({
          code: AccessErrorCode.Forbidden,
          data: { reason: 'audit-failing' },
        });
      expect(reported).toEqual(['ENOSPC']);
      expect(gw.endpoints.health().access).toMatchObject({
        state: 'refusing',
        reason: 'the audit log cannot be written (ENOSPC)',
        audit: { state: 'failing', code: 'ENOSPC' },
      });
    });
  },
);

/** A real RFC 8693 token endpoint on 127.0.0.1 (this test's own), counting its exchanges. */
async function tokenEndpoint(): Promise<{ url: string; exchanges: string[] }> {
  const exchanges: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const basic = Buffer.from('ledger-gw:ledger-secret').toString('base64');
      const reply = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.headers.authorization !== `Basic ${basic}`)
        return reply(401, { error: 'invalid_client' });
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange')
        return reply(400, { error: 'unsupported_grant_type' });
      const subject = Object.values(callers).find((c) => c.token === form.get('subject_token'));
      if (!subject || form.get('audience') !== 'https://ledger.example')
        return reply(400, { error: 'invalid_grant' });
      exchanges.push(subject.subject!);
      reply(200, {
        access_token: `ledger-token-for-${subject.subject}`,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 600,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    exchanges,
  };
}

describe('upstream identity', () => {
  it('a backend sees its caller’s subject and client id in headers, never another caller’s (one shared connection)', async () => {
    const gw = await front(
      { notes: await backend('notes') },
      {
        ...policy,
        identity: { notes: { header: 'X-Mcp-Subject', clientIdHeader: 'X-Mcp-Client' } },
      },
    );
    const ada = await clientOf(gw.url, 'ada');
    const bob = await clientOf(gw.url, 'bob');
    // Interleaved, at once: each answer carries its own caller's identity.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => {
        const [who, client] = i % 2 === 0 ? ['ada', ada] : ['bob', bob];
        return client
          .callTool({ name: 'notes__whoami' })
          .then((r) => [who, JSON.parse(textOf(r))] as const);
      }),
    );
    for (const [who, seen] of answers)
      expect(seen).toEqual({
        subject: who,
        client: callers[who]!.clientId,
        authorization: null,
      });
  });

  it('RFC 8693: the backend gets a token exchanged for its audience, cached per caller token (not per subject); never the caller’s own', async () => {
    const endpoint = await tokenEndpoint();
    const gw = await front(
      { ledger: await backend('ledger') },
      {
        rules: [{ scope: ['notes:read'] }],
        identity: {
          ledger: {
            tokenExchange: {
              tokenUrl: endpoint.url,
              clientId: 'ledger-gw',
              clientSecret: 'ledger-secret',
              audience: 'https://ledger.example',
            },
          },
        },
      },
    );
    const ada = await clientOf(gw.url, 'ada');
    const bob = await clientOf(gw.url, 'bob');
    const seen = async (client: McpClient) =>
      JSON.parse(textOf(await client.callTool({ name: 'ledger__whoami' }))) as Record<
        string,
        unknown
      >;
    expect((await seen(ada)).authorization).toBe('Bearer ledger-token-for-ada');
    expect((await seen(ada)).authorization).toBe('Bearer ledger-token-for-ada');
    expect((await seen(bob)).authorization).toBe('Bearer ledger-token-for-bob');
    expect(endpoint.exchanges).toEqual(['ada', 'bob']);
    // ada's other token (another client) is exchanged itself, not served the first one's answer.
    const adaOther = await clientOf(gw.url, 'ada-other');
    expect((await seen(adaOther)).authorization).toBe('Bearer ledger-token-for-ada');
    expect(endpoint.exchanges).toEqual(['ada', 'bob', 'ada']);
  });
});
