import { spawn } from 'node:child_process';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { ID_JAG, startXaaStack } from '../support/xaa.mjs';
import { xaaConfig, xaaHome } from '../support/xaa-cli-home.js';

/**
 * Enterprise-managed authorization (XAA) from the built CLI, with real parts: oidc-provider
 * as the enterprise identity provider (with the RFC 8693 token-exchange grant added), a
 * real HTTP authorization server taking the RFC 7523 JWT bearer grant and verifying the
 * ID-JAG against the IdP's keys, and an @mcpkit/server MCP server over Streamable HTTP
 * checking its tokens. Headless Chromium signs the user in at the IdP once.
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

type Stack = Awaited<ReturnType<typeof startXaaStack>>;

async function authFiles(dir: string): Promise<Array<{ file: string; key: string; record: any }>> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      const { key, record } = JSON.parse(await readFile(file, 'utf8'));
      return { file, key, record };
    }),
  );
}

describe('mcpkit with an enterprise-managed ("oauth.xaa") server', () => {
  let stack: Stack;
  let browser: Browser;
  let env: NodeJS.ProcessEnv;
  let authDir: string;
  let config: string;
  const runs: Run[] = [];
  const run = async (args: string[], onStderr?: (text: string) => void, withEnv = env) => {
    const r = await mcpkit([...args, '-c', config, '--strict-config'], withEnv, onStderr);
    runs.push(r);
    return r;
  };
  const secrets: string[] = [];
  const homes: string[] = [];
  const home = async (identityProvider?: unknown) => {
    const h = await xaaHome(identityProvider);
    homes.push(h.home);
    return h;
  };

  beforeAll(async () => {
    if (!haveChromium())
      throw new Error(
        'Chromium is missing: `pnpm test` installs it (scripts/ensure-chromium.mjs, as root); or set MCPKIT_CHROMIUM',
      );
    stack = await startXaaStack();
    browser = await launchChromium();
    ({ env, authDir } = await home({
      issuer: stack.idp.issuer,
      clientId: stack.idp.clientId,
    }));
    config = xaaConfig(stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it('before any sign-in, a command fails with the server named and "mcpkit login"', async () => {
    const r = await run(['tools']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('run "mcpkit login corp"');
    expect(stack.idp.exchanges).toHaveLength(0);
  });

  it('login signs in at the IdP once (browser), exchanges the ID token for an ID-JAG, and gets an access token', async () => {
    let visiting: Promise<string> | undefined;
    let url = '';
    const r = await run(['login', 'corp', '--no-browser'], (text) => {
      const m = /To authorize, visit:\s+(\S+)/.exec(text);
      if (m && !visiting) {
        url = m[1]!;
        visiting = signInAndConsent(browser, url);
      }
    });
    expect(await visiting).toContain('You can close this tab');
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Logged in to corp.\n');
    // The browser went to the IdP, with PKCE S256, state and nonce.
    const auth = new URL(url);
    expect(auth.origin).toBe(stack.idp.issuer);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('state')).toBeTruthy();
    expect(auth.searchParams.get('nonce')).toBeTruthy();
    expect(stack.idp.exchanges).toEqual([
      {
        audience: stack.as.issuer,
        resource: stack.mcp.url,
        requested_token_type: ID_JAG,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        scope: undefined,
        client_id: stack.idp.clientId,
      },
    ]);
    expect(stack.as.state.grants).toEqual(['ada']);
    const files = await authFiles(authDir);
    expect(files.map((f) => f.key).sort()).toEqual(
      [`idp:${stack.idp.issuer}`, stack.mcp.url].sort(),
    );
    for (const f of files) {
      expect((await stat(f.file)).mode & 0o777).toBe(0o600);
      const tokens = f.record.issuers[f.record.issuer].tokens;
      secrets.push(tokens.access_token);
      if (tokens.refresh_token) secrets.push(tokens.refresh_token);
    }
    expect((await stat(authDir)).mode & 0o777).toBe(0o700);
  });

  it('tools and call work with the stored token, without a browser', async () => {
    const tools = await run(['tools', 'corp']); // a positional names the server, as -s does
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('whoami');
    const call = await run(['call', 'corp', 'whoami']);
    expect(call.stderr).toBe('');
    expect(call.stdout).toBe('you are ada\n');
  });

  it('an expired access token is replaced by repeating the exchange (no browser)', async () => {
    const before = stack.idp.exchanges.length;
    const file = (await authFiles(authDir)).find((f) => f.key === stack.mcp.url)!;
    file.record.issuers[file.record.issuer].tokens.expires_at = Date.now() - 1000;
    await writeFile(file.file, JSON.stringify({ key: file.key, record: file.record }));
    const call = await run(['call', 'corp', 'whoami']);
    expect(call.stdout).toBe('you are ada\n');
    expect(stack.idp.exchanges.length).toBe(before + 1);
    expect(stack.as.state.grants).toEqual(['ada', 'ada']);
    const now = (await authFiles(authDir)).find((f) => f.key === stack.mcp.url)!;
    secrets.push(now.record.issuers[now.record.issuer].tokens.access_token);
  });

  it('an expired IdP sign-in is renewed with its refresh token, without a browser', async () => {
    const grants: string[] = [];
    const onGrant = (ctx: { oidc: { params?: { grant_type?: unknown } } }) =>
      grants.push(String(ctx.oidc.params?.grant_type));
    stack.idp.provider.on('grant.success', onGrant);
    try {
      const files = await authFiles(authDir);
      const idp = files.find((f) => f.key === `idp:${stack.idp.issuer}`)!;
      const before = idp.record.issuers[idp.record.issuer].tokens;
      expect(before.refresh_token).toBeTruthy();
      before.expires_at = Date.now() - 1000;
      await writeFile(idp.file, JSON.stringify({ key: idp.key, record: idp.record }));
      stack.as.tokens.clear();
      const call = await run(['call', 'corp', 'whoami']);
      expect(call.stdout).toBe('you are ada\n');
      expect(grants[0]).toBe('refresh_token');
      const after = (await authFiles(authDir)).find((f) => f.key === idp.key)!;
      const tokens = after.record.issuers[after.record.issuer].tokens;
      expect(tokens.access_token).not.toBe(before.access_token);
      expect(tokens.expires_at).toBeGreaterThan(Date.now());
      secrets.push(tokens.access_token, tokens.refresh_token);
    } finally {
      stack.idp.provider.off('grant.success', onGrant);
    }
  });

  it('the IdP refusing the exchange is a clear error naming the server, with a next step', async () => {
    stack.as.tokens.clear();
    stack.idp.policy.refuse = 'corp is not allowed for this user';
    try {
      const r = await run(['call', 'corp', 'whoami']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('server "corp"');
      expect(r.stderr).toContain('token exchange at the identity provider');
      expect(r.stderr).toContain('access_denied');
      expect(r.stderr).toContain('ask your identity-provider administrator');
    } finally {
      stack.idp.policy.refuse = undefined;
    }
  });

  it('the authorization server refusing an ID-JAG for the wrong audience is a clear error naming the server', async () => {
    stack.idp.policy.audience = 'https://somewhere-else.example';
    try {
      const r = await run(['call', 'corp', 'whoami']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('server "corp"');
      expect(r.stderr).toContain('JWT bearer grant');
      expect(r.stderr).toContain('invalid_grant');
      expect(r.stderr).toContain('ERR_JWT_CLAIM_VALIDATION_FAILED');
      expect(r.stderr).toMatch(/unexpected \W*aud\W* claim/);
      expect(r.stderr).toContain("refused the identity provider's grant");
    } finally {
      stack.idp.policy.audience = undefined;
    }
  });

  it('the authorization server refusing an expired ID-JAG is a clear error naming the server', async () => {
    stack.idp.policy.ttlSeconds = -60;
    try {
      const r = await run(['call', 'corp', 'whoami']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('server "corp"');
      expect(r.stderr).toContain('ERR_JWT_EXPIRED');
      expect(r.stderr).toContain("refused the identity provider's grant");
    } finally {
      stack.idp.policy.ttlSeconds = 300;
    }
    // And with the IdP behaving again, the same command works.
    const ok = await run(['call', 'corp', 'whoami']);
    expect(ok.stdout).toBe('you are ada\n');
  });

  it('without identity-provider settings, the entry fails alone with what to configure', async () => {
    const bare = await home();
    const r = await mcpkit(['call', 'corp', 'whoami', '-c', config, '--strict-config'], bare.env);
    runs.push(r);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('server "corp"');
    expect(r.stderr).toContain('needs identity-provider settings');
    expect(r.stderr).toContain('"identityProvider" block');
  });

  it('logout forgets the server tokens and the IdP sign-in; the next command needs a login', async () => {
    const r = await run(['logout', 'corp']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the sign-in at the identity provider');
    expect(await authFiles(authDir)).toEqual([]);
    stack.as.tokens.clear();
    const after = await run(['tools']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('run "mcpkit login corp"');
  });

  it('no token (ID token, ID-JAG, access token) appears in any output of the run', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const text = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/eyJ[\w-]{20,}\.[\w-]{20,}/);
  });
});
