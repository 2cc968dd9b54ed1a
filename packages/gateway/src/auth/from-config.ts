import { open } from 'node:fs/promises';
import { McpkitError } from '@mcpkit/jsonrpc';
import type { GatewayAuthConfig } from '../compose/config.js';
import type { ResourceServerOptions } from './resource-server.js';

/** The introspection client secret could not be had (unset variable, unreadable file). */
export class AuthSecretError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.AuthSecretError';
  override readonly name: string = 'AuthSecretError';
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super('MCPKIT_GATEWAY_AUTH_SECRET', `the introspection client secret (${source}): ${reason}`);
  }
}

const MAX_SECRET_BYTES = 4096;

async function readSecretFile(file: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new AuthSecretError(file, (error as NodeJS.ErrnoException).code ?? 'cannot be read');
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new AuthSecretError(file, 'not a regular file');
    // A secret others can read is no secret.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
      throw new AuthSecretError(file, 'readable by others (chmod 600 it)');
    if (stat.size > MAX_SECRET_BYTES)
      throw new AuthSecretError(file, `over ${MAX_SECRET_BYTES} bytes`);
    const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (text === '' || /[\r\n]/.test(text)) throw new AuthSecretError(file, 'not one line');
    return text;
  } finally {
    await handle.close();
  }
}

/** Whether the config's `auth` section makes the gateway an OAuth resource server (not only `static`). */
export function oauthConfigured(auth: GatewayAuthConfig | undefined): auth is GatewayAuthConfig {
  return auth !== undefined && (auth.issuers !== undefined || auth.introspection !== undefined);
}

/**
 * The resource server's options from the gateway config's `auth` section, the introspection
 * secret read from its variable or file, and the public origin (`publicUrl`) if set.
 */
export async function resourceServerOptionsFromConfig(
  auth: GatewayAuthConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ options: ResourceServerOptions; publicUrl: string | undefined }> {
  let introspection: ResourceServerOptions['introspection'];
  if (auth.introspection) {
    const { url, clientId, clientSecretEnv, clientSecretFile } = auth.introspection;
    let clientSecret: string;
    if (clientSecretEnv !== undefined) {
      const value = env[clientSecretEnv];
      if (value === undefined || value === '')
        throw new AuthSecretError(`$${clientSecretEnv}`, 'not set');
      clientSecret = value;
    } else clientSecret = await readSecretFile(clientSecretFile!);
    introspection = { url, clientId, clientSecret };
  }
  return {
    options: {
      issuers: auth.issuers ?? [],
      ...(auth.audience ? { audience: auth.audience } : {}),
      ...(auth.scopes ? { scopes: auth.scopes } : {}),
      ...(auth.endpoints ? { endpointScopes: endpointScopesOf(auth) } : {}),
      ...(introspection ? { introspection } : {}),
    },
    publicUrl: auth.publicUrl === undefined ? undefined : new URL(auth.publicUrl).origin,
  };
}

/** `auth.endpoints` as `ResourceServer.reconfigure` takes it. */
export function endpointScopesOf(auth: GatewayAuthConfig | undefined): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(auth?.endpoints ?? {}).map(([name, { scopes }]) => [name, scopes]),
  );
}
