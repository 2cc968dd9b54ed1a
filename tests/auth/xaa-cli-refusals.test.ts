import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumPath, haveChromium, signInAndConsent } from '../support/browser.js';
import { processTable } from '../support/process-table.js';
import { startXaaStack } from '../support/xaa.mjs';
import { xaaConfig, xaaHome } from '../support/xaa-cli-home.js';
import { type RedirectProxy, startRedirectProxy } from '../support/xaa-redirect-proxy.js';

/**
 * The refusals of the CLI's own sign-in at the enterprise identity provider (XAA), with
 * real parts: oidc-provider as the IdP, headless Chromium as the user's browser, the built
 * CLI. A real forward proxy between Chromium and everything (loopback included) plays the
 * man in the middle: it rewrites the IdP's redirect back to the CLI's callback (state,
 * iss) or the authorization request on its way to the IdP (nonce). Each time the CLI must
 * refuse with a clear error, store nothing, exchange nothing, and leave no process.
 */
const bin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

type Stack = Awaited<ReturnType<typeof startXaaStack>>;

describe('mcpkit login refuses a tampered sign-in at the identity provider', () => {
  let stack: Stack;
  let proxy: RedirectProxy;
  let browser: Browser;
  let home: string | undefined;
  let env: NodeJS.ProcessEnv;
  let authDir: string;
  let config: string;

  /** `mcpkit login corp`, with Chromium (through the proxy) playing the user. */
  const login = () =>
    new Promise<Run & { page: string; url: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [bin, 'login', 'corp', '--no-browser', '-c', config, '--strict-config'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      let url = '';
      let visiting: Promise<string> | undefined;
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /To authorize, visit:\s+(\S+)/.exec(stderr);
        if (m && !visiting) {
          url = m[1]!;
          visiting = signInAndConsent(browser, url).catch((e: Error) => `browser: ${e.message}`);
        }
      });
      child.on('close', async (code) =>
        resolve({ code, stdout, stderr, url, page: (await visiting) ?? '' }),
      );
    });

  /** What every refusal shares: a clear error, nothing stored or exchanged, no process. */
  async function expectRefused(r: Run & { page: string }, reason: string | RegExp) {
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('server "corp"');
    if (typeof reason === 'string') expect(r.stderr).toContain(reason);
    else expect(r.stderr).toMatch(reason);
    expect(r.stderr).toContain('run "mcpkit login corp"');
    // The browser did reach the CLI's callback: the refusal is the CLI's, not a broken flow.
    expect(r.page).toContain('You can close this tab');
    // ...and the page did not tell the user they were signed in.
    expect(r.page).toContain('Answer received');
    expect(r.page).not.toContain('Signed in');
    expect(await readdir(authDir).catch(() => [])).toEqual([]);
    expect(stack.idp.exchanges).toEqual([]);
    expect(stack.as.state.grants).toEqual([]);
    expect(processTable().filter((p) => p.cmdline.includes(stack.mcp.url))).toEqual([]);
  }

  beforeAll(async () => {
    if (!haveChromium())
      throw new Error(
        'Chromium is missing: `pnpm test` installs it (scripts/ensure-chromium.mjs, as root); or set MCPKIT_CHROMIUM',
      );
    stack = await startXaaStack();
    proxy = await startRedirectProxy();
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        `--proxy-server=${proxy.url}`,
        // Chromium sends loopback addresses around a proxy unless told not to.
        '--proxy-bypass-list=<-loopback>',
      ],
    });
    ({ home, env, authDir } = await xaaHome({
      issuer: stack.idp.issuer,
      clientId: stack.idp.clientId,
    }));
    config = xaaConfig(stack);
  }, 60_000);

  // Each case on its own: no sign-in stored, nothing exchanged or granted yet.
  beforeEach(async () => {
    await rm(authDir, { recursive: true, force: true });
    stack.idp.exchanges.length = 0;
    stack.as.state.grants.length = 0;
    stack.as.tokens.clear();
    proxy.rewritten.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await stack?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a redirect back with another state (forged callback): refused, nothing stored', async () => {
    proxy.rewriteRedirect = (q) => q.set('state', 'forged-by-the-proxy');
    try {
      const r = await login();
      expect(proxy.rewritten).toEqual([expect.stringContaining('state=forged-by-the-proxy')]);
      await expectRefused(r, 'the sign-in response has the wrong state; possible forgery');
    } finally {
      proxy.rewriteRedirect = undefined;
    }
  }, 60_000);

  it('a redirect back naming another issuer (RFC 9207 mix-up): refused, nothing stored', async () => {
    proxy.rewriteRedirect = (q) => q.set('iss', 'https://attacker.example');
    try {
      const r = await login();
      expect(proxy.rewritten).toEqual([expect.stringContaining('iss=https%3A%2F%2Fattacker')]);
      await expectRefused(
        r,
        `came from issuer "https://attacker.example", not "${stack.idp.issuer}"; possible mix-up attack`,
      );
    } finally {
      proxy.rewriteRedirect = undefined;
    }
  }, 60_000);

  it('a redirect back without the iss the IdP promises (RFC 9207): refused, nothing stored', async () => {
    proxy.rewriteRedirect = (q) => q.delete('iss');
    try {
      const r = await login();
      expect(proxy.rewritten).toHaveLength(1);
      expect(proxy.rewritten[0]).not.toContain('iss=');
      await expectRefused(r, 'promises an "iss" in its responses, and this one has none');
    } finally {
      proxy.rewriteRedirect = undefined;
    }
  }, 60_000);

  it('an ID token with another nonce (authorization request rewritten on its way): refused, nothing stored', async () => {
    proxy.rewriteRequest = (q) => q.set('nonce', 'nonce-of-another-sign-in');
    try {
      const r = await login();
      expect(proxy.rewritten).toEqual([expect.stringContaining('nonce=nonce-of-another-sign-in')]);
      await expectRefused(r, 'the ID token has the wrong nonce; possible replay');
    } finally {
      proxy.rewriteRequest = undefined;
    }
  }, 60_000);

  it("an ID token whose signature does not verify against the IdP's JWKS (injected fault: the JWKS publishes another key under the signing kid): refused, nothing stored", async () => {
    stack.idp.policy.foreignJwks = true;
    try {
      const r = await login();
      await expectRefused(
        r,
        /the identity provider's ID token did not verify \(signature verification failed\)/,
      );
    } finally {
      stack.idp.policy.foreignJwks = false;
    }
  }, 60_000);

  it('through the same proxy, untouched, the sign-in succeeds (the refusals above are the rewrites)', async () => {
    const r = await login();
    expect(proxy.rewritten).toEqual([]);
    expect(r.stderr).not.toContain('error');
    expect(r.stdout).toBe('Logged in to corp.\n');
    expect(r.code).toBe(0);
    expect((await readdir(authDir)).length).toBe(2);
    expect(stack.idp.exchanges).toHaveLength(1);
  }, 60_000);
});
