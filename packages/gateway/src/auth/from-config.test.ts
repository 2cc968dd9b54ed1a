import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayConfigError, parseGatewayConfig } from '../compose/config.js';
import { AuthSecretError, resourceServerOptionsFromConfig } from './from-config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-auth-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parse = (auth: unknown) =>
  parseGatewayConfig(JSON.stringify({ endpoints: { team: { servers: ['a'] } }, auth }), {
    file: 'gateway.jsonc',
    servers: ['a'],
  });

function messages(auth: unknown): string[] {
  try {
    parse(auth);
  } catch (error) {
    expect(GatewayConfigError.isInstance(error)).toBe(true);
    return (error as GatewayConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('the config was accepted');
}

describe('the gateway config’s auth section', () => {
  it('becomes the resource server’s options, the secret read from the environment', async () => {
    const config = parse({
      issuers: ['https://as.example.com'],
      scopes: ['mcp:tools'],
      endpoints: { team: { scopes: ['team:read'] } },
      publicUrl: 'https://gw.example.com',
      introspection: {
        url: 'https://as.example.com/introspect',
        clientId: 'gw',
        clientSecretEnv: 'GW_SECRET',
      },
    });
    const { options, publicUrl } = await resourceServerOptionsFromConfig(config.auth!, {
      GW_SECRET: 's3cret',
    });
    expect(publicUrl).toBe('https://gw.example.com');
    expect(options).toEqual({
      issuers: ['https://as.example.com'],
      scopes: ['mcp:tools'],
      endpointScopes: { team: ['team:read'] },
      introspection: {
        url: 'https://as.example.com/introspect',
        clientId: 'gw',
        clientSecret: 's3cret',
      },
    });
  });

  it('names what is wrong: an unknown endpoint, two secret sources, a public URL with a path, a bad scope', () => {
    expect(
      messages({
        issuers: ['https://as.example.com'],
        endpoints: { nope: { scopes: ['x'] } },
        publicUrl: 'https://gw.example.com/base',
        scopes: ['has"quote'],
        introspection: {
          url: 'https://as/i',
          clientId: 'gw',
          clientSecretEnv: 'A',
          clientSecretFile: '/f',
        },
      }).join('\n'),
    ).toContain('auth.scopes[0]');
    const text = messages({
      issuers: ['https://as.example.com'],
      endpoints: { nope: { scopes: ['x'] } },
      publicUrl: 'https://gw.example.com/base',
      introspection: {
        url: 'https://as/i',
        clientId: 'gw',
        clientSecretEnv: 'A',
        clientSecretFile: '/f',
      },
    }).join('\n');
    expect(text).toContain('auth.endpoints.nope: no endpoint named "nope"');
    expect(text).toContain('auth.introspection: give the client secret as exactly one');
    expect(text).toContain('auth.publicUrl: an origin only');
  });

  it('refuses a secret file others can read, and an unset variable', async () => {
    const file = path.join(dir, 'secret');
    writeFileSync(file, 'abc\n');
    chmodSync(file, 0o644);
    const auth = (source: Record<string, string>) => ({
      issuers: ['https://as.example.com'],
      introspection: { url: 'https://as.example.com/i', clientId: 'gw', ...source },
    });
    const config = parse(auth({ clientSecretFile: file })).auth!;
    if (process.platform !== 'win32')
      await expect(resourceServerOptionsFromConfig(config)).rejects.toThrow(AuthSecretError);
    chmodSync(file, 0o600);
    const { options } = await resourceServerOptionsFromConfig(config);
    expect(options.introspection?.clientSecret).toBe('abc');
    await expect(
      resourceServerOptionsFromConfig(parse(auth({ clientSecretEnv: 'UNSET_VAR' })).auth!, {}),
    ).rejects.toThrow(/UNSET_VAR\): not set/);
  });
});
