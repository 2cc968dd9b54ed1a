import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { composeBackends, configFile, sorted } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';
import { startKeyIssuer } from './oauth-support.js';

/**
 * The access rules of a running `mcpkit serve --http` (the built CLI) edited on disk: each
 * session whose tools the new rules change hears `notifications/tools/list_changed` and
 * lists the new set; a session whose tools stay the same hears nothing. A rewrite that does
 * not parse fails closed, so every session's list becomes empty: all of them hear it, and
 * again when the file is fixed. Two signed-in callers (JWTs of a real issuer on 127.0.0.1):
 * alice with our McpClient (2026-07-28: its `subscriptions/listen` stream), bob with the
 * official SDK v1 client (2025-11-25: its GET stream).
 *
 * "Hears nothing" without a sleep: each caller's notifications come in order on its own
 * stream, so when a session hears the list_changed of a later edit, one it should not
 * have heard for an earlier edit would have come first and be counted.
 */
const rules = {
  alice: { subject: ['alice'], servers: ['notes'], tools: ['read_*'] },
  bob: { subject: ['bob'], servers: ['files'] },
};
let issuer: Awaited<ReturnType<typeof startKeyIssuer>>;
const config = configFile({});
let gateway: HttpGateway;
let alice: McpClient;
let bob: Client;
const heard = { alice: 0, bob: 0 };
const write = (accessRules: unknown[]) =>
  config.write({ auth: { issuers: [issuer.issuer] }, access: { rules: accessRules } });

beforeAll(async () => {
  issuer = await startKeyIssuer();
  write([rules.alice, rules.bob]);
  gateway = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
  const aud = `${gateway.url.origin}/mcp`;
  alice = new McpClient({ eraCache: false });
  alice.onnotification = (n) => {
    if (n.method === 'notifications/tools/list_changed') heard.alice++;
  };
  await alice.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      headers: { authorization: `Bearer ${await issuer.sign({ sub: 'alice', aud })}` },
    }),
  );
  // 2026-07-28: list changes come on a listen stream, open once acknowledged.
  expect(alice.protocolVersion).toBe('2026-07-28');
  await alice.listen({ toolsListChanged: true });
  bob = new Client({ name: 'sdk-v1', version: '1.0.0' });
  bob.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard.bob++;
  });
  await bob.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: {
        headers: { authorization: `Bearer ${await issuer.sign({ sub: 'bob', aud })}` },
      },
    }),
  );
}, 60_000);
afterAll(async () => {
  await alice?.close().catch(() => {});
  await bob?.close().catch(() => {});
  await gateway?.close();
  await issuer?.close();
  config.cleanup();
});

/** Waits until `who` heard `n` list_changed in all, then checks it heard no more. */
async function heardExactly(who: keyof typeof heard, n: number) {
  await waitFor(() => heard[who] >= n || undefined, `${who}'s list_changed #${n}`);
  expect(heard[who]).toBe(n);
}
const aliceTools = async () => (await alice.listTools({ fresh: true })).map((t) => t.name).sort();
const bobTools = async () => sorted((await bob.listTools()).tools);

describe('a reloaded access policy tells the sessions whose lists it changed', () => {
  it('list_changed to the callers whose tools changed, and to nobody else', async () => {
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await bobTools()).toEqual(['files__delete_note', 'files__read_note', 'files__write']);

    // alice may write notes too: only alice's list changed.
    write([{ ...rules.alice, tools: ['read_*', 'write'] }, rules.bob]);
    await heardExactly('alice', 1);
    expect(await aliceTools()).toEqual(['notes__read_note', 'notes__write']);

    // bob may no longer delete: bob hears it (his first), alice nothing (still one).
    write([
      { ...rules.alice, tools: ['read_*', 'write'] },
      rules.bob,
      { subject: ['bob'], servers: ['files'], tools: ['delete_*'], effect: 'deny' },
    ]);
    await heardExactly('bob', 1);
    expect(await bobTools()).toEqual(['files__read_note', 'files__write']);

    // A rewrite that changes no one's view (the same rules, reordered): nobody hears it.
    const reloads = () => gateway.stderr().split('reloaded').length;
    const seen = reloads();
    write([
      { subject: ['bob'], servers: ['files'], tools: ['delete_*'], effect: 'deny' },
      rules.bob,
      { ...rules.alice, tools: ['read_*', 'write'] },
    ]);
    await waitFor(() => reloads() > seen || undefined, 'the reload');

    // Unreadable: the policy fails closed, every list is empty, both hear it (their second).
    config.writeText('{ "access": { "rules": [ { "servers": "notes" } ] } }');
    await heardExactly('alice', 2);
    await heardExactly('bob', 2);
    expect(await aliceTools()).toEqual([]);
    expect(await bobTools()).toEqual([]);

    // Fixed: both lists are back, and both hear it.
    write([rules.alice, rules.bob]);
    await heardExactly('alice', 3);
    await heardExactly('bob', 3);
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await bobTools()).toEqual(['files__delete_note', 'files__read_note', 'files__write']);
  });
});
