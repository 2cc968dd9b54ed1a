import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveServeAuth, serveTokenFile } from './serve-token.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function context(env: Record<string, string> = {}) {
  const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-serve-token-'));
  homes.push(home);
  return { cwd: home, home, env };
}

describe('resolveServeAuth', () => {
  it('the state file lives under $XDG_STATE_HOME (absolute) or ~/.local/state', () => {
    const ctx = context();
    expect(serveTokenFile(ctx)).toBe(path.join(ctx.home, '.local/state/mcpkit/serve-token'));
    expect(serveTokenFile({ ...ctx, env: { XDG_STATE_HOME: '/x/state' } })).toBe(
      '/x/state/mcpkit/serve-token',
    );
    expect(serveTokenFile({ ...ctx, env: { XDG_STATE_HOME: 'relative' } })).toBe(
      path.join(ctx.home, '.local/state/mcpkit/serve-token'),
    );
  });

  it('two gateways starting at once end up with one token (made once, 0600)', async () => {
    const ctx = context();
    const [a, b] = await Promise.all([
      resolveServeAuth(ctx, {}, true),
      resolveServeAuth(ctx, {}, true),
    ]);
    expect(a.kind === 'token' && b.kind === 'token' && a.token === b.token).toBe(true);
    expect(
      [a, b].filter((r) => r.kind === 'token' && r.source === 'state' && r.created),
    ).toHaveLength(1);
    expect(statSync(serveTokenFile(ctx)).mode & 0o777).toBe(0o600);
  });

  it('refuses a state file that is a link, and --no-auth beside MCPKIT_SERVE_TOKEN', async () => {
    const ctx = context();
    const file = serveTokenFile(ctx);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const elsewhere = path.join(ctx.home, 'elsewhere');
    writeFileSync(elsewhere, 'a-token-somewhere-else-0123456789\n', { mode: 0o600 });
    symlinkSync(elsewhere, file);
    await expect(resolveServeAuth(ctx, {}, true)).rejects.toThrow(/cannot read the token file/);

    const withEnv = context({ MCPKIT_SERVE_TOKEN: 'x'.repeat(20) });
    await expect(resolveServeAuth(withEnv, { 'no-auth': true }, true)).rejects.toThrow(
      '--no-auth and MCPKIT_SERVE_TOKEN exclude each other',
    );
    // A token flag wins over the environment.
    expect(await resolveServeAuth(withEnv, { token: 'y'.repeat(20) }, true)).toMatchObject({
      token: 'y'.repeat(20),
      source: 'flag',
    });
    await expect(
      resolveServeAuth(context({ MCPKIT_SERVE_TOKEN: 'short' }), {}, true),
    ).rejects.toThrow(/at least 16 characters/);
    await expect(
      resolveServeAuth(context(), { token: 'has spaces in it, 16+' }, true),
    ).rejects.toThrow(/visible ASCII/);
  });
});
