import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoopbackAuthorization, OAuthProvider } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import { ResourceServer } from '@mcpkit/gateway/node';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
  UnauthorizedError as UnauthorizedV2,
} from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc.js';
import { startOAuthGateway } from './oauth-support.js';

/**
 * The gateway as the MCP authorization spec's resource server in front of a real
 * authorization server (oidc-provider: JWT access tokens for `/mcp/notes-only`, opaque ones
 * for `/mcp`, introspected), signed in with headless Chromium by our McpClient and the
 * official SDK v1 and v2 clients: discovery, sign-in, calls, 403 and a step-up.
 */
const INTROSPECTOR = {
  clientId: 'mcpkit-gateway',
  clientSecret: 'gateway-secret-0123456789abcdef',
};
const SDK_CLIENT = 'sdk-client';
const BASE_SCOPES = { scopes: ['mcp:tools'] };
const RAISED = {
  scopes: ['mcp:tools'],
  endpointScopes: { 'notes-only': ['mcp:tools', 'notes:write'] },
};

describe.skipIf(!haveChromium())(
  'the gateway behind oidc-provider, signed in with Chromium',
  () => {
    let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
    let gw: Awaited<ReturnType<typeof startOAuthGateway>>;
    let rs: ResourceServer;
    let browser: Browser;
    let callback: Server;
    let callbackUrl: string;
    let notesUrl: string;
    const opened: { close(): Promise<unknown> }[] = [];

    beforeAll(async () => {
      // The SDK clients' redirect URI: a page that says it is done (the browser stops there).
      callback = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in');
      });
      await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
      callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
      oidc = await startOidcProvider({
        // The SDK clients are registered beforehand, for any scope: registered dynamically,
        // they would be held to the scope of the first challenge, and the step-up refused.
        clients: [
          {
            client_id: SDK_CLIENT,
            redirect_uris: [callbackUrl],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          },
        ],
        resourceScope: 'mcp:tools notes:write',
        accessTokenFormat: (resource) => (resource.endsWith('/mcp') ? 'opaque' : 'jwt'),
        introspectionClient: INTROSPECTOR,
      });
      rs = new ResourceServer({
        issuers: [oidc.issuer],
        ...BASE_SCOPES,
        introspection: { url: `${oidc.issuer}/token/introspection`, ...INTROSPECTOR },
      });
      gw = await startOAuthGateway({ oauth: rs });
      notesUrl = `${gw.listener.url.href}/notes-only`;
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      for (const c of opened.splice(0)) await c.close().catch(() => {});
      await browser?.close();
      callback?.closeAllConnections();
      await new Promise<void>((r) => (callback ? callback.close(() => r()) : r()));
      await gw?.close();
      await oidc?.close();
    });

    beforeEach(() => rs.reconfigure(BASE_SCOPES));

    /** McpClient with our OAuthProvider, its loopback redirect and the browser. */
    function mcpkitClient(url: string) {
      const pages: string[] = [];
      const auth = new OAuthProvider({
        serverUrl: url,
        serverName: 'gw',
        interactive: new LoopbackAuthorization({
          open: async (authorizeUrl) => {
            pages.push(await signInAndConsent(browser, authorizeUrl));
          },
        }),
      });
      const client = new McpClient({ name: 'gw', eraCache: false });
      opened.push(client);
      return {
        client,
        auth,
        pages,
        transport: new StreamableHttpTransport({ url, name: 'gw', auth }),
      };
    }

    it('McpClient: discovers the endpoint’s metadata, signs in, lists and calls with a JWT', async () => {
      const { client, auth, pages, transport } = mcpkitClient(notesUrl);
      await client.connect(transport);
      const result = await client.callTool({ name: 'notes__read_note', arguments: { id: 'n1' } });
      expect(result.content[0]).toEqual({ type: 'text', text: 'notes read_note {"id":"n1"}' });
      expect(pages).toHaveLength(1);
      const tokens = (await auth.tokens())!;
      expect(tokens.access_token.split('.')).toHaveLength(3);
      expect(tokens.scope?.split(' ')).toEqual(['mcp:tools']);
    });

    it('McpClient: a raised endpoint scope is 403 insufficient_scope; it steps up and the call succeeds', async () => {
      const { client, auth, pages, transport } = mcpkitClient(notesUrl);
      await client.connect(transport);
      expect(pages).toHaveLength(1);
      rs.reconfigure(RAISED);
      const result = await client.callTool({ name: 'notes__read_note', arguments: { id: 'n2' } });
      expect(result.content[0]).toEqual({ type: 'text', text: 'notes read_note {"id":"n2"}' });
      expect(pages).toHaveLength(2);
      expect((await auth.tokens())!.scope?.split(' ').sort()).toEqual(['mcp:tools', 'notes:write']);
    });

    it('McpClient at /mcp: an opaque token, verified by introspection and then from the cache', async () => {
      const { client, auth, transport } = mcpkitClient(gw.listener.url.href);
      await client.connect(transport);
      expect((await auth.tokens())!.access_token.split('.')).not.toHaveLength(3);
      await client.callTool({ name: 'files__read_note', arguments: { id: 'a' } });
      const asked = rs.fetches.introspection;
      expect(asked).toBeGreaterThan(0);
      const result = await client.callTool({ name: 'files__read_note', arguments: { id: 'b' } });
      expect(result.content[0]).toEqual({ type: 'text', text: 'files read_note {"id":"b"}' });
      expect(rs.fetches.introspection).toBe(asked);
    });

    /**
     * The SDKs' OAuthClientProvider (the same shape in v1 and v2), in memory: the sign-in runs
     * in the browser when the SDK redirects; the code is handed to `finishAuth` afterwards.
     */
    function sdkProvider() {
      const state: {
        client?: unknown;
        tokens?: { access_token: string; scope?: string };
        verifier?: string;
        callback?: URLSearchParams;
        pages: number;
      } = { pages: 0, client: { client_id: SDK_CLIENT } };
      const provider = {
        get redirectUrl() {
          return callbackUrl;
        },
        get clientMetadata() {
          return {
            client_name: 'sdk-client',
            redirect_uris: [callbackUrl],
            // No refresh token: a step-up is a new authorization, not a refresh.
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          };
        },
        clientInformation: () => state.client as never,
        saveClientInformation: (info: unknown) => {
          state.client = info;
        },
        tokens: () => state.tokens as never,
        saveTokens: (tokens: { access_token: string; scope?: string }) => {
          state.tokens = tokens;
        },
        redirectToAuthorization: async (url: URL) => {
          state.pages++;
          const page = await browser.newPage();
          try {
            await page.goto(url.href);
            // Signed in before (the browser keeps the provider's session): straight back, or
            // only the consent page for the scopes not granted yet.
            if (await page.$('input[name=login]')) {
              await page.fill('input[name=login]', 'ada');
              await page.fill('input[name=password]', 'correct horse');
              await page.click('button[type=submit]');
            }
            if (!/\/callback\?/.test(page.url())) {
              await page.waitForSelector('input[name=prompt][value=consent]', {
                state: 'attached',
              });
              await page.click('button[type=submit]');
              await page.waitForURL(/\/callback\?/);
            }
            state.callback = new URL(page.url()).searchParams;
            if (state.callback.get('error'))
              throw new Error(`refused: ${decodeURIComponent(page.url().split('?')[1] ?? '')}`);
          } finally {
            await page.close();
          }
        },
        saveCodeVerifier: (v: string) => {
          state.verifier = v;
        },
        codeVerifier: () => state.verifier!,
      };
      return { provider, state };
    }

    for (const sdk of [
      { name: 'SDK v1', Client: ClientV1, Http: HttpV1, Unauthorized: UnauthorizedV1 },
      { name: 'SDK v2', Client: ClientV2, Http: HttpV2, Unauthorized: UnauthorizedV2 },
    ] as const) {
      it(`${sdk.name}: discovers, signs in, calls inside its scope, gets 403 outside it and succeeds after stepping up`, async () => {
        const { provider, state } = sdkProvider();
        const Http = sdk.Http as unknown as typeof HttpV1;
        // v1 takes the code; v2 the callback's parameters (it checks `iss`, RFC 9207).
        const finish = (t: InstanceType<typeof HttpV1>) =>
          sdk.name === 'SDK v1'
            ? t.finishAuth(state.callback!.get('code')!)
            : (t as unknown as InstanceType<typeof HttpV2>).finishAuth(state.callback!);
        const Client = sdk.Client as unknown as typeof ClientV1;
        const connectOnce = async () => {
          const transport = new Http(new URL(notesUrl), { authProvider: provider as never });
          const client = new Client({ name: 'sdk', version: '0.0.0' });
          opened.push(client);
          try {
            await client.connect(transport);
            return { client, transport };
          } catch (error) {
            expect(error).toBeInstanceOf(sdk.Unauthorized);
            await finish(transport);
            const again = new Http(new URL(notesUrl), { authProvider: provider as never });
            const client2 = new Client({ name: 'sdk', version: '0.0.0' });
            opened.push(client2);
            await client2.connect(again);
            return { client: client2, transport: again };
          }
        };
        const { client, transport } = await connectOnce();
        expect(state.pages).toBe(1);
        expect(state.tokens!.scope).toBe('mcp:tools');
        const call = () =>
          client.callTool({ name: 'notes__read_note', arguments: { id: sdk.name } }) as Promise<{
            content: unknown[];
          }>;
        expect((await call()).content[0]).toEqual({
          type: 'text',
          text: `notes read_note {"id":"${sdk.name}"}`,
        });
        rs.reconfigure(RAISED);
        // 403 insufficient_scope: the SDK asks for the challenge's scopes in a new sign-in,
        // then hands the application an UnauthorizedError to finish it with the code.
        const stepped = await call().catch((e: unknown) => e);
        expect(stepped).toBeInstanceOf(sdk.Unauthorized);
        expect(state.pages).toBe(2);
        await finish(transport);
        expect(state.tokens!.scope?.split(' ').sort()).toEqual(['mcp:tools', 'notes:write']);
        expect((await call()).content[0]).toEqual({
          type: 'text',
          text: `notes read_note {"id":"${sdk.name}"}`,
        });
      });
    }
  },
);
