import type { IdentityProviderConfig } from '@mcpkit/auth';
import { parseJsoncText, readConfigFile } from '@mcpkit/config';
import { configPaths } from '@mcpkit/config/advanced';
import type { CliContext } from './server-selection.js';

/** The settings key of the enterprise identity provider (for entries with `oauth.xaa`). */
export const IDENTITY_PROVIDER_KEY = 'identityProvider';

/** What the CLI takes from the settings block, beyond the library's settings. */
export interface CliIdentityProvider extends IdentityProviderConfig {
  /** A fixed port for the sign-in's loopback redirect (an IdP that wants an exact URI). */
  callbackPort?: number;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The `identityProvider` block of the managed settings, else of the user's settings
 * (`settings.json`); undefined when neither has one. A block in the wrong shape is an
 * error naming the file and the field.
 */
export async function identityProviderOf(
  ctx: CliContext,
): Promise<CliIdentityProvider | undefined> {
  const paths = configPaths({ home: ctx.home, env: ctx.env, platform: process.platform });
  for (const file of [paths.managedSettings, paths.userSettings]) {
    const text = await readConfigFile(file);
    if (text === undefined) continue;
    const parsed = parseJsoncText(text, file);
    const value = (parsed.value as Record<string, unknown> | undefined)?.[IDENTITY_PROVIDER_KEY];
    if (parsed.error || value === undefined) continue;
    const bad = (field: string, what: string) =>
      new Error(`${file}: "${IDENTITY_PROVIDER_KEY}.${field}" must be ${what}`);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new Error(
        `${file}: "${IDENTITY_PROVIDER_KEY}" must be an object with "issuer" and "clientId"`,
      );
    const v = value as Record<string, unknown>;
    if (!isString(v.issuer)) throw bad('issuer', "the identity provider's issuer URL");
    if (!isString(v.clientId)) throw bad('clientId', "this client's id at the identity provider");
    if (v.clientSecret !== undefined && !isString(v.clientSecret))
      throw bad('clientSecret', 'a string');
    if (v.scopes !== undefined && (!Array.isArray(v.scopes) || !v.scopes.every(isString)))
      throw bad('scopes', 'a list of scope names');
    const port = v.callbackPort;
    if (
      port !== undefined &&
      !(Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536)
    )
      throw bad('callbackPort', 'a port number');
    return {
      issuer: v.issuer,
      clientId: v.clientId,
      ...(isString(v.clientSecret) ? { clientSecret: v.clientSecret } : {}),
      ...(Array.isArray(v.scopes) ? { scopes: v.scopes as string[] } : {}),
      ...(port !== undefined ? { callbackPort: port as number } : {}),
    };
  }
  return undefined;
}
