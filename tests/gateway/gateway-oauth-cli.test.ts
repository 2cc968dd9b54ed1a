import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBackends, configFile } from './compose-support.js';
import { startHttpGateway } from './gateway-process.js';
import { challengeParams, startKeyIssuer } from './oauth-support.js';

/**
 * `mcpkit serve --http` (the built CLI) with the gateway config's `auth` section: OAuth
 * tokens from the issuer beside the state-file token, and what the user reads.
 */
let issuer: Awaited<ReturnType<typeof startKeyIssuer>>;
beforeAll(async () => {
  issuer = await startKeyIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
});

describe('mcpkit serve with an auth section', () => {
  it('serves the metadata, takes the issuer’s tokens and the static token, and says so on stderr', async () => {
    const config = configFile({
      endpoints: { 'team-a': { servers: ['notes'] } },
      auth: { issuers: [issuer.issuer], scopes: ['mcp:tools'] },
    });
    const gw = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
    try {
      expect(gw.stderr()).toContain(`mcpkit serve: OAuth access tokens from ${issuer.issuer}`);
      const base = gw.url.origin;
      const prm = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/team-a`);
      expect(await prm.json()).toMatchObject({
        resource: `${base}/mcp/team-a`,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['mcp:tools'],
      });
      const post = (token: string | undefined) =>
        fetch(`${base}/mcp/team-a`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: initialize,
        });
      const none = await post(undefined);
      expect(none.status).toBe(401);
      expect(challengeParams(none.headers.get('www-authenticate')).resource_metadata).toBe(
        `${base}/.well-known/oauth-protected-resource/mcp/team-a`,
      );
      const jwt = await issuer.sign({ aud: `${base}/mcp/team-a`, scope: 'mcp:tools' });
      const ok = await post(jwt);
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
      const staticToken = await post(gw.token);
      expect(staticToken.status).toBe(200);
      await staticToken.body?.cancel();
    } finally {
      await gw.close();
      config.cleanup();
    }
  });

  it('an introspection secret whose variable is unset: refused before anything listens', async () => {
    const config = configFile({
      auth: {
        issuers: [issuer.issuer],
        introspection: {
          url: `${issuer.issuer}/introspect`,
          clientId: 'gw',
          clientSecretEnv: 'MCPKIT_TEST_UNSET_SECRET',
        },
      },
    });
    try {
      const error = await startHttpGateway(composeBackends(), [
        '--gateway-config',
        config.file,
      ]).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('$MCPKIT_TEST_UNSET_SECRET): not set');
    } finally {
      config.cleanup();
    }
  });
});
