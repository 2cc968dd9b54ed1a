import { configPaths } from '@mcpkit/config/advanced';

// `@mcpkit/auth`'s code of `XaaError`, matched without loading the package.
const XAA_CODE = 'MCPKIT_AUTH_XAA';

interface XaaFacts {
  stage: string;
  server: string;
  oauthError?: string | undefined;
}

/** The first `XaaError` (by its code) in an error's cause chain. */
function xaaFacts(error: unknown): XaaFacts | undefined {
  let e = error as
    | { code?: unknown; stage?: unknown; server?: unknown; cause?: unknown }
    | undefined;
  for (let depth = 0; e && depth < 8; depth++) {
    if (e.code === XAA_CODE && typeof e.stage === 'string' && typeof e.server === 'string')
      return e as XaaFacts;
    e = e.cause as typeof e;
  }
  return undefined;
}

const settingsFile = () =>
  configPaths({ home: process.env.HOME ?? '~', env: process.env, platform: process.platform })
    .userSettings;

/**
 * What to do about a failed step of enterprise-managed authorization (an entry with
 * `oauth.xaa`), from the error's facts; empty when the error is not one.
 */
export function xaaNextStep(error: unknown, name?: string): string {
  const facts = xaaFacts(error);
  if (!facts) return '';
  const server = name ?? facts.server;
  const code = facts.oauthError ? ` (${facts.oauthError})` : '';
  switch (facts.stage) {
    case 'idp-settings':
      return `enterprise-managed sign-in needs an "identityProvider" block ({"issuer": …, "clientId": …}) in ${settingsFile()} and "oauth.clientId" in the entry of "${server}" (see "Enterprise-managed sign-in" in the CLI's README)`;
    case 'idp-sign-in':
      // A forged or mixed-up answer passes on a second try; an IdP whose keys do not match
      // its ID tokens does not, and only its administrator can fix that.
      return `run "mcpkit login ${server}" to sign in to the identity provider again; if it is refused the same way, show this message to your identity-provider administrator`;
    case 'token-exchange':
      return `the identity provider would not grant access to "${server}"${code}: run "mcpkit login ${server}" to sign in again, and if it still refuses, ask your identity-provider administrator to allow this client for that server`;
    case 'jwt-bearer':
      return `the authorization server of "${server}" refused the identity provider's grant${code}: check "oauth.clientId" of "${server}" (mcpkit get ${server}), and ask that server's administrator to trust your identity provider for this client`;
    default:
      return '';
  }
}
