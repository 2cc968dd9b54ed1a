import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { identityProviderOf } from './identity-provider.js';
import { xaaNextStep } from './xaa-advice.js';

const homes: string[] = [];
afterEach(async () => {
  while (homes.length > 0) await rm(homes.pop()!, { recursive: true, force: true });
});

/** A fresh home whose user settings file holds `settings` (when given). */
async function homeWith(settings?: string) {
  const home = await mkdtemp(path.join(tmpdir(), 'mcpkit-idp-settings-'));
  homes.push(home);
  const config = path.join(home, 'config');
  if (settings !== undefined) {
    await mkdir(path.join(config, 'mcpkit'), { recursive: true });
    await writeFile(path.join(config, 'mcpkit', 'settings.json'), settings);
  }
  return {
    file: path.join(config, 'mcpkit', 'settings.json'),
    ctx: { cwd: home, home, env: { XDG_CONFIG_HOME: config } },
  };
}

describe('the identityProvider settings block', () => {
  it('is read from the user settings, with its optional fields', async () => {
    const { ctx } = await homeWith(
      JSON.stringify({
        identityProvider: {
          issuer: 'https://idp.example.com',
          clientId: 'mcpkit-cli',
          scopes: ['openid', 'email'],
          callbackPort: 8765,
        },
      }),
    );
    expect(await identityProviderOf(ctx)).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'mcpkit-cli',
      scopes: ['openid', 'email'],
      callbackPort: 8765,
    });
  });

  it('is undefined without a settings file or without the block', async () => {
    expect(await identityProviderOf((await homeWith()).ctx)).toBeUndefined();
    expect(await identityProviderOf((await homeWith('{"theme":"dark"}')).ctx)).toBeUndefined();
  });

  it('in the wrong shape is an error naming the file and the field', async () => {
    const { ctx, file } = await homeWith('{"identityProvider":{"issuer":"https://i.example"}}');
    await expect(identityProviderOf(ctx)).rejects.toThrow(
      `${file}: "identityProvider.clientId" must be this client's id at the identity provider`,
    );
    const port = await homeWith(
      '{"identityProvider":{"issuer":"https://i.example","clientId":"c","callbackPort":70000}}',
    );
    await expect(identityProviderOf(port.ctx)).rejects.toThrow('"identityProvider.callbackPort"');
  });
});

describe('the next step of a failed XAA step', () => {
  const xaa = (stage: string, oauthError?: string) =>
    Object.assign(new Error('m'), { code: 'MCPKIT_AUTH_XAA', stage, server: 'wiki', oauthError });

  it('names the server and what to do, per stage, also through a cause', () => {
    expect(xaaNextStep(xaa('idp-settings'))).toContain('"identityProvider" block');
    expect(xaaNextStep(xaa('idp-sign-in'))).toBe(
      'run "mcpkit login wiki" to sign in to the identity provider again; if it is refused the same way, show this message to your identity-provider administrator',
    );
    expect(xaaNextStep(xaa('token-exchange', 'access_denied'))).toContain(
      'the identity provider would not grant access to "wiki" (access_denied)',
    );
    expect(
      xaaNextStep(new Error('outer', { cause: xaa('jwt-bearer', 'invalid_grant') })),
    ).toContain('the authorization server of "wiki" refused');
  });

  it('is empty for any other error', () => {
    expect(xaaNextStep(new Error('plain'))).toBe('');
    expect(xaaNextStep(Object.assign(new Error('x'), { code: 'MCPKIT_AUTH_ERROR' }))).toBe('');
  });
});
