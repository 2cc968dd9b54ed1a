import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { McpClient } from '@mcpkit/client';
import { streamableHttpDefaults } from '@mcpkit/server';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  faultServer,
  gatewayArgs,
  type HttpGateway,
  serveTokenFileOf,
  startHttpGateway,
} from './gateway-process.js';

/**
 * `mcpkit serve --http`'s face (the built CLI, real processes on this machine): a token on
 * every bind by default, kept where the user's hosts can read it; `--token-file`,
 * `--no-auth`; the media type and the exact Origin (the page-on-localhost lock-out);
 * `--allowed-host` and the bound address's own names.
 */
const servers = { echo: { command: process.execPath, args: [faultServer, 'ok'] } };
const clientScript = fileURLToPath(new URL('./http-face-client.mjs', import.meta.url));
const run = promisify(execFile);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
  bind?: string,
): Promise<HttpGateway> {
  const gateway = await startHttpGateway(servers, extra, env, bind);
  cleanups.push(() => gateway.close());
  return gateway;
}

/** A serve that must not start: its exit code and stderr. */
async function refused(extra: string[], env: NodeJS.ProcessEnv = {}) {
  const { args, env: base, cleanup } = gatewayArgs(servers, extra);
  cleanups.push(cleanup);
  const child = spawn(process.execPath, args, { env: { ...base, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** The initialize of a client in another process, with an Authorization header or none. */
async function otherProcess(url: URL, authorization?: string): Promise<number> {
  const { stdout } = await run(process.execPath, [
    clientScript,
    url.href,
    ...(authorization ? [authorization] : []),
  ]);
  return (JSON.parse(stdout) as { status: number }).status;
}

/** One request on a real connection to `address`, with the Host (and other) headers given. */
function raw(
  address: string,
  port: number,
  options: { method?: string; path?: string; headers: Record<string, string>; body?: string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: address,
        port,
        path: options.path ?? '/mcp',
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  },
});

async function listTools(url: URL, headers: Record<string, string>): Promise<string[]> {
  const client = new McpClient({ name: 'face-test', era: 'legacy', eraCache: false });
  await client.connect(new StreamableHttpTransport({ url, headers }));
  try {
    return (await client.listTools()).map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('a token on every bind (loopback meant no authentication)', () => {
  it('by default: a new token, printed once, in a 0600 file (folder 0700) of the state directory; another process without it gets 401', async () => {
    const gateway = await start();
    const file = serveTokenFileOf(gateway.home);
    const token = readFileSync(file, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(gateway.stderr()).toContain(`kept 0600 in ${file}`);
    expect(gateway.stderr().split(token).length - 1).toBe(1);

    expect(await otherProcess(gateway.url)).toBe(401);
    expect(await otherProcess(gateway.url, 'Bearer not-the-token-0123456789')).toBe(401);
    expect(await otherProcess(gateway.url, `Bearer ${token}`)).toBe(200);
    expect(await listTools(gateway.url, { Authorization: `Bearer ${token}` })).toContain(
      'echo__echo',
    );
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(401);
  });

  it('the next run reuses the file (the hosts keep their token), and never prints it again', async () => {
    const first = await start();
    const token = first.token!;
    const second = await start([], { HOME: first.home });
    expect(second.stderr()).toContain(`bearer token: the one in ${serveTokenFileOf(first.home)}`);
    expect(second.stderr()).not.toContain(token);
    expect(await otherProcess(second.url, `Bearer ${token}`)).toBe(200);
    expect(await otherProcess(second.url)).toBe(401);
  });

  it('a state token file that other users can read is refused, not used (exit 2)', async () => {
    const first = await start();
    const file = serveTokenFileOf(first.home);
    chmodSync(file, 0o644);
    const { code, stderr } = await refused(['--http', '127.0.0.1:0'], { HOME: first.home });
    expect(code).toBe(2);
    expect(stderr).toContain(`the token file ${file} can be read by other users (mode 0644)`);
    expect(stderr).not.toContain('listening on');
  });

  it('--token-file: a 0600 file is the token; a file others can read is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-token-file-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'token');
    const token = 'token-from-a-file-0123456789abcdef';
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const gateway = await start(['--token-file', file]);
    expect(gateway.stderr()).toContain('bearer token: from --token-file');
    expect(gateway.stderr()).not.toContain(token);
    expect(await otherProcess(gateway.url)).toBe(401);
    expect(await otherProcess(gateway.url, `Bearer ${token}`)).toBe(200);

    chmodSync(file, 0o640);
    const open = await refused(['--http', '127.0.0.1:0', '--token-file', file]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('can be read by other users (mode 0640)');
    const both = await refused(['--http', '127.0.0.1:0', '--token-file', file, '--token', token]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--token-file and --token exclude each other');
  });

  it('--token works and warns that /proc shows it to every local user', async () => {
    const token = 'token-on-the-command-line-0123456789';
    const gateway = await start(['--token', token]);
    expect(gateway.stderr()).toContain('--token is visible to every local user');
    expect(await otherProcess(gateway.url, `Bearer ${token}`)).toBe(200);
    expect(await otherProcess(gateway.url)).toBe(401);
  });

  it('--no-auth: on loopback, with a warning; on 0.0.0.0, a usage error before anything listens', async () => {
    const gateway = await start(['--no-auth']);
    expect(gateway.stderr()).toMatch(
      /warning: --no-auth: every local account and process can call every server/,
    );
    expect(await otherProcess(gateway.url)).toBe(200);

    const wide = await refused(['--http', '0.0.0.0:0', '--no-auth']);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain('--no-auth is allowed on a loopback bind only');
    expect(wide.stderr).not.toContain('listening on');
  });
});

describe('a web page on localhost cannot lock the user out', () => {
  it(`the lock-out request (Origin http://localhost:3000, text/plain;charset=application/json), ${streamableHttpDefaults.maxSessions} times, and the same without the token, are refused; the user's client still gets its session`, async () => {
    const gateway = await start();
    const port = Number(gateway.url.port);
    const page = {
      Host: `localhost:${port}`,
      Origin: 'http://localhost:3000',
      'Content-Type': 'text/plain;charset=application/json',
    };
    // Half of them as the page sends it, half as a local process without the token would
    // (the gateway's own origin, a JSON body): neither may take a session slot.
    const noToken = {
      Host: `127.0.0.1:${port}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    };
    const statuses = new Set<number>();
    const total = streamableHttpDefaults.maxSessions;
    for (let sent = 0; sent < total; sent += 20) {
      const batch = Array.from({ length: Math.min(20, total - sent) }, (_, i) =>
        raw('127.0.0.1', port, {
          method: 'POST',
          headers: i % 2 === 0 ? page : noToken,
          body: initialize,
        }),
      );
      for (const status of await Promise.all(batch)) statuses.add(status);
    }
    expect([...statuses].sort()).toEqual([401, 403]);

    // Each check alone, with the user's token: the media type, then the port of the Origin.
    const auth = { Authorization: `Bearer ${gateway.token}` };
    const own = `http://127.0.0.1:${port}`;
    expect(
      await raw('127.0.0.1', port, {
        method: 'POST',
        headers: {
          ...auth,
          Host: `127.0.0.1:${port}`,
          Origin: own,
          'Content-Type': page['Content-Type'],
        },
        body: initialize,
      }),
    ).toBe(415);
    expect(
      await raw('127.0.0.1', port, {
        method: 'POST',
        headers: {
          ...auth,
          Host: `localhost:${port}`,
          Origin: 'http://localhost:3000',
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: initialize,
      }),
    ).toBe(403);
    expect(
      await raw('127.0.0.1', port, {
        method: 'POST',
        headers: {
          ...auth,
          Host: `127.0.0.1:${port}`,
          Origin: own,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: initialize,
      }),
    ).toBe(200);
    expect(await listTools(gateway.url, auth)).toContain('echo__echo');
  });

  it('--allowed-origin lets one named origin in (scheme, host and port); the others stay out', async () => {
    const gateway = await start(['--allowed-origin', 'http://localhost:3000']);
    const port = Number(gateway.url.port);
    const post = (origin: string) =>
      raw('127.0.0.1', port, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${gateway.token}`,
          Host: `127.0.0.1:${port}`,
          Origin: origin,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: initialize,
      });
    expect(await post('http://localhost:3000')).toBe(200);
    expect(await post('http://localhost:3001')).toBe(403);
    expect(await post('https://localhost:3000')).toBe(403);
    const bad = await refused(['--http', '127.0.0.1:0', '--allowed-origin', 'localhost:3000/x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allowed-origin takes an origin');
  });
});

describe("--http 0.0.0.0: the machine's own names and --allowed-host (every LAN client got 403)", () => {
  const token = 'lan-token-0123456789abcdef0123456789';
  const healthOf = (port: number) => (address: string, host: string) =>
    raw(address, port, {
      path: '/healthz',
      headers: { Host: `${host}:${port}`, Authorization: `Bearer ${token}` },
    });

  it("answers a Host naming one of this machine's IPv4 interface addresses or its host name; refuses another", async () => {
    const gateway = await start([], { MCPKIT_SERVE_TOKEN: token }, '0.0.0.0:0');
    const health = healthOf(Number(gateway.url.port));
    // Each IPv4 interface address (0.0.0.0 is IPv4 only) reached on that very address: a
    // LAN client's request, when the machine has a non-loopback interface.
    const interfaces = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((e) => e.family === 'IPv4');
    for (const { address } of interfaces)
      expect({ address, status: await health(address, address) }).toEqual({
        address,
        status: 200,
      });
    const name = hostname();
    expect({ name, status: await health('127.0.0.1', name) }).toEqual({ name, status: 200 });
    expect(await health('127.0.0.1', 'evil.example')).toBe(403);
  });

  it("--allowed-host adds a name (a DNS name, a proxy's), in any case; a value with a port is a usage error", async () => {
    const gateway = await start(
      ['--allowed-host', 'Gateway.Example'],
      { MCPKIT_SERVE_TOKEN: token },
      '0.0.0.0:0',
    );
    const health = healthOf(Number(gateway.url.port));
    expect(await health('127.0.0.1', 'gateway.example')).toBe(200);
    expect(await health('127.0.0.1', 'GATEWAY.example')).toBe(200);
    expect(await health('127.0.0.1', 'other.example')).toBe(403);
    const badHost = await refused(['--http', '0.0.0.0:0', '--allowed-host', 'a.example:80']);
    expect(badHost.code).toBe(2);
    expect(badHost.stderr).toContain('--allowed-host takes a host name or address without a port');
  });
});
