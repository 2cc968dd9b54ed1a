import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileTokenStore } from '@mcpkit/auth';
import type { ResolvedServer } from '@mcpkit/config';
import { afterEach, describe, expect, it } from 'vitest';
import { authFinding, commandFinding, urlFinding } from './doctor-checks.js';

let dir: string | undefined;
const servers: Array<{ close(cb: () => void): void }> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function entry(name: string, config: Record<string, unknown>, source = '/x/servers.json') {
  return {
    name,
    config,
    scope: 'user',
    source,
    status: 'enabled',
    reason: '',
    missingVariables: [],
  } as unknown as ResolvedServer;
}

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

describe('commandFinding', () => {
  it('finds a bare name on the PATH the server gets, and a relative path from its folder; runs nothing', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-doctor-'));
    mkdirSync(path.join(dir, 'bin'));
    const tool = path.join(dir, 'bin', 'my-server');
    // Would leave a file behind if it were ever run.
    writeFileSync(tool, `#!/bin/sh\ntouch ${dir}/ran\n`);
    chmodSync(tool, 0o755);
    const ctx = { cwd: dir, home: dir, env: { PATH: '/nonexistent' } };
    const onPath = await commandFinding(
      entry('a', { command: 'my-server', env: { PATH: path.join(dir, 'bin') } }),
      ctx,
    );
    expect(onPath).toEqual({ check: 'command', level: 'ok', message: tool });
    const missing = await commandFinding(entry('b', { command: 'my-server' }), ctx);
    expect(missing).toMatchObject({ level: 'error', message: '"my-server" is not on PATH' });
    expect(missing.next).toContain('set "command" of "b" to its full path in /x/servers.json');
    // A project file's relative command is relative to that file's folder.
    const source = path.join(dir, '.mcp.json');
    writeFileSync(source, '{}');
    const relative = await commandFinding(
      { ...entry('c', { command: './bin/my-server' }, source), scope: 'project' } as ResolvedServer,
      { ...ctx, cwd: '/' },
    );
    expect(relative).toMatchObject({ level: 'ok', message: tool });
    const notExecutable = path.join(dir, 'plain');
    writeFileSync(notExecutable, '');
    expect(await commandFinding(entry('d', { command: notExecutable }), ctx)).toMatchObject({
      level: 'error',
    });
    expect(() => readFileSync(path.join(dir!, 'ran'))).toThrow();
  });
});

describe('urlFinding', () => {
  it("any HTTP answer is reachable; the entry's headers are not sent", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const port = await listen(
      createHttpServer((req, res) => {
        seen.push(req.headers);
        res.writeHead(405).end();
      }),
    );
    const f = await urlFinding(`http://127.0.0.1:${port}/mcp?key=1`, 'web', 5000);
    expect(f.level).toBe('ok');
    expect(f.message).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/mcp answered HTTP 405`));
    expect(seen[0]).not.toHaveProperty('authorization');
  });

  it('names a refused connection, a deadline passed, a bad scheme', async () => {
    const tcp = createTcpServer((socket) => sockets.push(socket));
    const silent = await listen(tcp);
    const closedServer = createTcpServer();
    const closed = await listen(closedServer);
    await new Promise<void>((r) => closedServer.close(() => r()));
    servers.splice(servers.indexOf(closedServer), 1);
    expect(await urlFinding(`http://127.0.0.1:${closed}/`, 'web', 5000)).toMatchObject({
      level: 'error',
      message: expect.stringContaining('is not reachable: ECONNREFUSED'),
    });
    expect(await urlFinding(`http://127.0.0.1:${silent}/`, 'web', 300)).toMatchObject({
      level: 'error',
      message: expect.stringContaining('did not answer within 300 ms'),
      next: expect.stringContaining('--timeout <ms>'),
    });
    expect(await urlFinding('ftp://127.0.0.1/', 'web', 300)).toMatchObject({ level: 'error' });
  });

  it('names a TLS failure (a self-signed certificate) with its code', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-doctor-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
      ],
      { stdio: 'ignore' },
    );
    const port = await listen(
      createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) =>
        res.end(),
      ) as unknown as Server,
    );
    const f = await urlFinding(`https://127.0.0.1:${port}/mcp`, 'web', 5000);
    expect(f.level).toBe('error');
    expect(f.message).toMatch(
      /^TLS with 127\.0\.0\.1:\d+ failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED)/,
    );
    expect(f.next).toContain('NODE_EXTRA_CA_CERTS');
  });
});

describe('authFinding', () => {
  it('says whether tokens are stored and when they expire, never a token', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-doctor-auth-'));
    const ctx = { cwd: dir, home: dir, env: { XDG_DATA_HOME: dir } };
    const url = 'https://mcp.example.test/mcp';
    const web = entry('web', { type: 'http', url });
    expect(await authFinding(web, ctx)).toMatchObject({
      level: 'info',
      next: 'if the server asks for a sign-in, run "mcpkit login web"',
    });
    const store = new FileTokenStore(path.join(dir, 'mcpkit', 'auth'));
    const now = Date.now();
    const save = (tokens: Record<string, unknown>) =>
      store.set(url, {
        issuer: 'https://as',
        issuers: { 'https://as': { tokens: tokens as never } },
      });
    await save({ access_token: 'AT-SECRET', token_type: 'Bearer', expires_at: now + 3_600_000 });
    const fresh = await authFinding(web, ctx, now);
    expect(fresh).toMatchObject({ level: 'ok', message: 'signed in; the token expires in 60 min' });
    await save({ access_token: 'AT-SECRET', token_type: 'Bearer', expires_at: now - 120_000 });
    const expired = await authFinding(web, ctx, now);
    expect(expired).toMatchObject({ level: 'warning', next: 'run "mcpkit login web"' });
    await save({
      access_token: 'AT-SECRET',
      refresh_token: 'RT-SECRET',
      token_type: 'Bearer',
      expires_at: now - 120_000,
    });
    expect(await authFinding(web, ctx, now)).toMatchObject({ level: 'info' });
    for (const f of [fresh, expired]) expect(JSON.stringify(f)).not.toMatch(/SECRET/);
    expect(await authFinding(entry('s', { command: 'x' }), ctx)).toBeUndefined();
    expect(
      await authFinding(
        entry('h', { type: 'http', url, headers: { Authorization: 'Bearer X' } }),
        ctx,
      ),
    ).toMatchObject({ level: 'info', message: 'an Authorization header from the config' });
  });
});
