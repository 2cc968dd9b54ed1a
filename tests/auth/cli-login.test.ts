import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';

/**
 * The CLI against an MCP server behind a real authorization server: a command fails with
 * "run mcpkit login", `mcpkit login --no-browser` prints the URL (a headless Chromium
 * plays the user there), later commands use the stored token, `mcpkit logout` forgets it.
 */
const bin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mcpkit(
  args: string[],
  env: NodeJS.ProcessEnv,
  onStderr?: (text: string) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      onStderr?.(stderr);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mcpkit login / logout against oidc-provider', () => {
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
  let mcp: StreamableHttpTestServer;
  let browser: Browser;
  let home: string | undefined;
  let env: NodeJS.ProcessEnv;
  let config: string;
  const runs: Run[] = [];
  const run = async (args: string[], onStderr?: (text: string) => void) => {
    const r = await mcpkit([...args, '-c', config, '--strict-config'], env, onStderr);
    runs.push(r);
    return r;
  };

  beforeAll(async () => {
    if (!haveChromium())
      throw new Error(
        'Chromium is missing: `pnpm test` installs it (scripts/ensure-chromium.mjs, as root); or set MCPKIT_CHROMIUM',
      );
    oidc = await startOidcProvider();
    mcp = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
      authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
    });
    browser = await launchChromium();
    home = await mkdtemp(path.join(tmpdir(), 'mcpkit-cli-login-'));
    env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, 'data') };
    config = JSON.stringify({ mcpServers: { secure: { type: 'http', url: mcp.url } } });
  }, 60_000);

  afterAll(async () => {
    try {
      await browser?.close();
      await mcp?.close();
      await oidc?.close();
    } finally {
      if (home) await rm(home, { recursive: true, force: true });
    }
  });

  it('before login, a command exits non-zero and says to run mcpkit login', async () => {
    const r = await run(['tools']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('run "mcpkit login secure"');
  });

  it('login --no-browser prints the URL; after sign-in and consent it stores the token, 0600', async () => {
    let visiting: Promise<string> | undefined;
    const r = await run(['login', 'secure', '--no-browser'], (text) => {
      const m = /To authorize, visit:\s+(\S+)/.exec(text);
      if (m && !visiting) visiting = signInAndConsent(browser, m[1]!);
    });
    expect(r.stderr).toContain('To authorize, visit:');
    expect(await visiting).toContain('You can close this tab');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Logged in to secure.\n');
    const dir = path.join(env.XDG_DATA_HOME!, 'mcpkit', 'auth');
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(path.join(dir, files[0]!))).mode & 0o777).toBe(0o600);
  });

  it('a second login (another free port) keeps the same client registration', async () => {
    const dir = path.join(env.XDG_DATA_HOME!, 'mcpkit', 'auth');
    const clientOf = async () => {
      const file = path.join(dir, (await readdir(dir))[0]!);
      const { record } = JSON.parse(await readFile(file, 'utf8'));
      return record.issuers[record.issuer].client.client_id as string;
    };
    const first = await clientOf();
    let visiting: Promise<string> | undefined;
    const r = await run(['login', 'secure', '--no-browser'], (text) => {
      const m = /To authorize, visit:\s+(\S+)/.exec(text);
      if (m && !visiting) visiting = signInAndConsent(browser, m[1]!);
    });
    await visiting;
    expect(r.code).toBe(0);
    expect(await clientOf()).toBe(first);
  });

  it('later commands use the stored token', async () => {
    const r = await run(['tools']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('echo');
    expect(oidc.grants).toEqual(['authorization_code', 'authorization_code']);
  });

  it('logout forgets it, and the server needs a login again', async () => {
    const out = await run(['logout', 'secure']);
    expect(out.code).toBe(0);
    expect(await readdir(path.join(env.XDG_DATA_HOME!, 'mcpkit', 'auth'))).toEqual([]);
    const r = await run(['tools']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('run "mcpkit login secure"');
  });

  it('no run printed a token or an authorization code', async () => {
    const text = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(text).not.toMatch(/"access_token"|refresh_token=|Bearer [A-Za-z0-9]/);
    expect(text).not.toMatch(/[?&]code=(?!\[redacted\])/);
  });
});

describe('mcpkit with a headersHelper entry', () => {
  let mcp: StreamableHttpTestServer;
  let home: string | undefined;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    mcp = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      authorize: (req) =>
        req.headers.authorization === 'Bearer from-helper' && req.headers['x-team'] === 'blue',
    });
    home = await mkdtemp(path.join(tmpdir(), 'mcpkit-cli-helper-'));
    env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, 'data') };
  });
  afterAll(async () => {
    try {
      await mcp?.close();
    } finally {
      if (home) await rm(home, { recursive: true, force: true });
    }
  });

  const config = (helper: string) =>
    JSON.stringify({
      mcpServers: {
        api: {
          type: 'http',
          url: mcp.url,
          headers: { Authorization: 'Bearer static', 'X-Team': 'blue' },
          headersHelper: helper,
        },
      },
    });

  it("uses the helper's headers over the static ones", async () => {
    const r = await mcpkit(
      ['tools', '-c', config(`echo '{"Authorization": "Bearer from-helper"}'`), '--strict-config'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('echo');
  });

  it('a failing helper is an error that names the server and the helper', async () => {
    const r = await mcpkit(['tools', '-c', config('exit 7'), '--strict-config'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server "api": headersHelper failed (exit code 7)');
  });
});
