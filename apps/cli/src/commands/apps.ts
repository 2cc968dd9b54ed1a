import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadResult } from '@mcpkit/config';
import {
  type HostContent,
  type HostTool,
  type HostToolResult,
  type McpManager,
  uiAllowAttribute,
  uiContentSecurityPolicy,
} from '@mcpkit/manager';
import { failureLine } from '../core/advice.js';
import { type Io, UsageError } from '../core/io.js';
import { openManager } from '../core/open-manager.js';
import { type CliContext, notStartedHint } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import { neutralize } from '../terminal/neutralize.js';
import { HOST_JS, HOST_PAGE } from './apps-host/page.js';
import { ViewOrigins } from './apps-host/view-origins.js';

/**
 * `mcpkit apps [server]`: a reference MCP Apps host on 127.0.0.1. The page lists the App
 * tools (those with a `ui://` view), runs one through the manager, and renders its view in
 * a sandboxed iframe (an opaque origin, the view's CSP as a header) wired to the official
 * `AppBridge` of `@modelcontextprotocol/ext-apps`. The view's `tools/call` and
 * `resources/read` come back here and go through the manager's App gate
 * (`callToolFromApp`: its own server's tools whose visibility has "app"). A view that
 * declares `_meta.ui.domain` runs at an origin of its own instead (view-origins.ts), and
 * `prefersBorder` decides the frame's border and background.
 *
 * Access: a random token in a one-time URL (`/open?t=…`) sets an HttpOnly, SameSite=Strict
 * session cookie; every other route but a view's single-use URL needs that cookie, the API
 * also a custom header and the page's own origin, and every request the expected Host.
 */
export interface AppsFlags {
  port?: string;
}

const MAX_BODY = 1024 * 1024;
const VIEW_TTL_MS = 60_000;

interface View {
  html: string;
  csp: string;
  /** The origin the view is served from: the host's own, or its domain's. */
  origin: string;
  expires: number;
}

/** An opaque origin: the view reaches nothing of the page but postMessage. */
const SANDBOX_OPAQUE = 'allow-scripts allow-forms';
/** A view at its domain's own origin keeps that origin (the spec's sandbox permissions). */
const SANDBOX_OWN_ORIGIN = 'allow-scripts allow-same-origin allow-forms';

export async function appsCommand(
  io: Io,
  ctx: CliContext,
  resolved: LoadResult,
  rest: string[],
  flags: AppsFlags,
  timeoutMs: number,
  version: string,
  shutdown: Shutdown,
): Promise<number> {
  if (rest.length > 1) throw new UsageError('usage: mcpkit apps [server] [--port n]');
  const only = rest[0];
  if (only !== undefined && !resolved.servers.some((s) => s.name === only))
    throw new UsageError(`no server named "${only}"; "mcpkit list" shows the configured servers`);
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--port takes a port number (0 to 65535; 0: any free port)');
  const servers = only ? resolved.servers.filter((s) => s.name === only) : resolved.servers;
  const manager = openManager(servers, ctx, { timeoutMs, shutdown, apps: true });
  // The official AppBridge, bundled for the browser at build time (tsup.config.ts).
  const bridge = await readFile(new URL('../dist-apps-host/bridge.js', import.meta.url));
  const token = randomBytes(32).toString('base64url');
  const session = randomBytes(32).toString('base64url');
  let tokenUsed = false;
  const views = new Map<string, View>();
  let origin = '';
  let connecting: Promise<void> = Promise.resolve();
  const logged = new Set<string>();
  const log = (line: string) => {
    if (logged.size < 256 && !logged.has(line)) {
      logged.add(line);
      io.stderr(`mcpkit apps: ${neutralize(line)}\n`);
    }
  };

  const send = (
    res: ServerResponse,
    status: number,
    body: string | Buffer,
    type: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...headers,
    });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, value: unknown) =>
    send(res, status, JSON.stringify(value), 'application/json; charset=utf-8');

  // A view's single-use URL, only at the origin it was given; only the host page frames it.
  const serveView = (res: ServerResponse, url: URL, at: string) => {
    const id = url.pathname.slice('/view/'.length);
    const view = views.get(id);
    if (!view || view.origin !== at) return send(res, 404, '', 'text/plain');
    views.delete(id);
    if (view.expires < Date.now()) return send(res, 404, '', 'text/plain');
    return send(res, 200, view.html, 'text/html; charset=utf-8', {
      'content-security-policy': `${view.csp}; frame-ancestors ${origin}`,
    });
  };
  // A domain's origin serves its views' single-use URLs and nothing else.
  const viewOrigins = new ViewOrigins((req, res, at) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.host !== at.slice('http://'.length)) return send(res, 421, '', 'text/plain');
    if (req.method === 'GET' && url.pathname.startsWith('/view/')) return serveView(res, url, at);
    return send(res, 404, '', 'text/plain');
  });

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // DNS rebinding: only our own host name reaches anything.
    if (req.headers.host !== origin.slice('http://'.length))
      return send(res, 421, '', 'text/plain');
    if (req.method === 'GET' && url.pathname === '/open') {
      const given = Buffer.from(url.searchParams.get('t') ?? '');
      const ok =
        !tokenUsed && given.length === token.length && timingSafeEqual(given, Buffer.from(token));
      if (!ok)
        return send(
          res,
          403,
          'this link was used already or is wrong; start mcpkit apps again\n',
          'text/plain',
        );
      tokenUsed = true;
      return send(res, 303, '', 'text/plain', {
        location: '/',
        'set-cookie': `mcpkit_apps=${session}; HttpOnly; SameSite=Strict; Path=/`,
      });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/view/'))
      return serveView(res, url, origin);
    if (!hasSession(req, session)) return send(res, 401, '', 'text/plain');
    if (req.method === 'GET' && url.pathname === '/')
      return send(res, 200, HOST_PAGE, 'text/html; charset=utf-8', {
        'content-security-policy':
          "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-src 'self' http://127.0.0.1:*; img-src 'self' data:; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
      });
    if (req.method === 'GET' && url.pathname === '/host.js')
      return send(res, 200, HOST_JS, 'text/javascript; charset=utf-8');
    if (req.method === 'GET' && url.pathname === '/bridge.js')
      return send(res, 200, bridge, 'text/javascript; charset=utf-8');
    if (req.method !== 'POST' || !url.pathname.startsWith('/api/'))
      return send(res, 404, '', 'text/plain');
    if (req.headers['x-mcpkit-apps'] !== '1' || req.headers.origin !== origin)
      return send(res, 403, '', 'text/plain');
    let body: Record<string, unknown>;
    try {
      body = await readJson(req);
    } catch (error) {
      return json(res, 400, { error: { message: (error as Error).message } });
    }
    try {
      return json(
        res,
        200,
        await api(manager, url.pathname, body, {
          views,
          viewOrigins,
          origin,
          version,
          only,
          log,
          connecting,
        }),
      );
    } catch (error) {
      const e = error as {
        name?: string;
        code?: unknown;
        message?: string;
        reason?: unknown;
        server?: unknown;
      };
      return json(res, 422, {
        error: {
          name: e.name,
          code: e.code,
          reason: e.reason,
          server: e.server,
          message: e.message,
        },
      });
    }
  };
  const http = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, '', 'text/plain');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // The page's tool list waits for this first connect: a second connectAll() finds every
  // server added already and returns at once, listing only those connected so far.
  // The terminal says which servers the page will not have, and why (the page lists only
  // App tools of connected servers): not started by the gate, or failed to connect.
  for (const entry of servers)
    if (entry.status !== 'enabled') log(`not started: ${notStartedHint(entry)}`);
  connecting = manager.connectAll().then(
    (snapshot) => {
      for (const state of snapshot.servers)
        if (state.state === 'failed' || state.state === 'needs-auth')
          for (const line of failureLine(state).split('\n')) log(line);
    },
    () => {},
  );
  io.stdout(`mcpkit apps: open ${origin}/open?t=${token}\n`);
  io.stderr('mcpkit apps: the link works once; Ctrl-C stops the host\n');
  await new Promise<void>((resolve) => {
    if (shutdown.signal.aborted) resolve();
    else shutdown.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await viewOrigins.close();
  await manager.close().catch(() => {});
  return 0;
}

// Every cookie of that name is tried: cookies are not kept apart by port, so a view at its
// domain's origin could set one of the same name (a longer path is sent first).
function hasSession(req: IncomingMessage, session: string): boolean {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (
      k === 'mcpkit_apps' &&
      v !== undefined &&
      v.length === session.length &&
      timingSafeEqual(Buffer.from(v), Buffer.from(session))
    )
      return true;
  }
  return false;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('the request body is larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('the request body is not a JSON object');
  return value as Record<string, unknown>;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 4096)
    throw new Error(`${what} must be a string`);
  return v;
};
const args = (v: unknown): Record<string, unknown> =>
  v === undefined
    ? {}
    : typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : {};

interface ApiContext {
  views: Map<string, View>;
  viewOrigins: ViewOrigins;
  /** The host page's origin. */
  origin: string;
  version: string;
  only: string | undefined;
  log(line: string): void;
  /** The first connect of every server. */
  connecting: Promise<void>;
}

async function api(
  manager: McpManager,
  path: string,
  body: Record<string, unknown>,
  { views, viewOrigins, origin, version, only, log, connecting }: ApiContext,
): Promise<unknown> {
  switch (path) {
    case '/api/tools': {
      await connecting;
      const tools = (await manager.tools()).filter(
        (t: HostTool) => t.ui?.resourceUri && (only === undefined || t.server === only),
      );
      return {
        version,
        tools: tools.map((t) => ({
          name: t.name,
          server: t.server,
          tool: t.tool,
          description: t.description,
          resourceUri: t.ui!.resourceUri,
          inputSchema: t.inputSchema,
        })),
      };
    }
    case '/api/call': {
      // The user ran the tool from the page: the model-facing path.
      const result = await manager.callTool(
        str(body.server, 'server'),
        str(body.tool, 'tool'),
        args(body.arguments),
      );
      return mcpResult(result);
    }
    case '/api/app-call': {
      // The view's own tools/call: the App gate.
      const result = await manager.callToolFromApp(
        str(body.server, 'server'),
        str(body.tool, 'tool'),
        args(body.arguments),
      );
      return mcpResult(result);
    }
    case '/api/app-read':
    case '/api/view': {
      const server = str(body.server, 'server');
      const uri = str(body.uri, 'uri');
      const view = await manager.readUiResource(server, uri);
      if (path === '/api/app-read')
        return {
          contents: [
            {
              uri: view.uri,
              mimeType: view.mimeType,
              text: view.html,
              ...(view._meta ? { _meta: view._meta } : {}),
            },
          ],
        };
      const csp = uiContentSecurityPolicy(view.csp);
      let at = origin;
      let domain: { declared: string; origin?: string; declined?: string } | undefined;
      if (view.domain !== undefined) {
        const grant = await viewOrigins.originFor(server, view.domain);
        const declared = view.domain.slice(0, 300);
        if ('origin' in grant) {
          at = grant.origin;
          domain = { declared, origin: at };
          log(`server "${server}": views of domain "${declared}" run at ${at}`);
        } else {
          domain = { declared, declined: grant.declined };
          log(`server "${server}": domain "${declared}" declined: ${grant.declined}`);
        }
      }
      const now = Date.now();
      for (const [key, v] of views) if (v.expires < now) views.delete(key);
      const id = randomBytes(18).toString('base64url');
      views.set(id, { html: view.html, csp, origin: at, expires: now + VIEW_TTL_MS });
      return {
        src: `${at}/view/${id}`,
        sandbox: at === origin ? SANDBOX_OPAQUE : SANDBOX_OWN_ORIGIN,
        allow: uiAllowAttribute(view.permissions),
        csp,
        ...(domain ? { domain } : {}),
        ...(view.prefersBorder !== undefined ? { prefersBorder: view.prefersBorder } : {}),
      };
    }
    default:
      throw new Error(`no such API: ${path}`);
  }
}

/** A host result as the MCP CallToolResult a view expects (files stand as their text). */
function mcpResult(result: HostToolResult): Record<string, unknown> {
  const content = result.content.map((c: HostContent) => {
    switch (c.type) {
      case 'text':
        return c;
      case 'resource':
        return {
          type: 'resource',
          resource: { uri: c.uri, text: c.text, ...(c.mimeType ? { mimeType: c.mimeType } : {}) },
        };
      case 'resource_link':
        return c;
      default:
        return {
          type: 'text',
          text: `[${c.kind} saved to ${c.path} (${c.mimeType}, ${c.bytes} bytes)]`,
        };
    }
  });
  return {
    content,
    isError: result.isError,
    ...(result.structuredContent !== undefined
      ? { structuredContent: result.structuredContent }
      : {}),
    ...(result._meta ? { _meta: result._meta } : {}),
  };
}
