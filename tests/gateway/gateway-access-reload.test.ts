import { rmSync } from 'node:fs';
import { McpClient } from '@mcpkit/client';
import { RpcError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { waitFor } from '../support/wait-for.js';
import { composeBackends, configFile, sorted } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';
import { startKeyIssuer } from './oauth-support.js';

/**
 * The access rules of a running `mcpkit serve --http` (the built CLI) edited on disk: each
 * session whose tools (prompts, resources) the new rules change hears
 * `notifications/tools/list_changed` (`prompts/…`, `resources/…`) and lists the new set, and
 * a call to a tool taken away is refused (-32040); a session whose lists stay the same hears
 * nothing. A rewrite that does not check, or the file removed, fails closed: every session's
 * list becomes empty and every call is refused, all of them hear it, and again when the file
 * is fixed. Two signed-in callers (JWTs of a real issuer on 127.0.0.1): alice with our
 * McpClient (2026-07-28: its `subscriptions/listen` stream), bob with the official SDK v1
 * client (2025-11-25: its GET stream). Backends: two echo servers and server-everything
 * (prompts and resources).
 *
 * "Hears nothing" without a sleep: each caller's notifications come in order on its own
 * stream, so when a session hears the list_changed of a later edit, one it should not
 * have heard for an earlier edit would have come first and be counted.
 */
const rules = {
  alice: { subject: ['alice'], servers: ['notes'], tools: ['read_*'] },
  bob: { subject: ['bob'], servers: ['files'] },
  // A rule without tools covers the whole server: its tools, prompts and resources.
  aliceEverything: { subject: ['alice'], servers: ['everything'] },
};
let issuer: Awaited<ReturnType<typeof startKeyIssuer>>;
const config = configFile({});
let gateway: HttpGateway;
let alice: McpClient;
let bob: Client;
const heard = { alice: 0, bob: 0 };
const aliceHeard = { prompts: 0, resources: 0 };
const write = (accessRules: unknown[]) =>
  config.write({ auth: { issuers: [issuer.issuer] }, access: { rules: accessRules } });

beforeAll(async () => {
  issuer = await startKeyIssuer();
  write([rules.alice, rules.bob]);
  gateway = await startHttpGateway(
    {
      ...composeBackends(),
      everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
    },
    ['--gateway-config', config.file],
  );
  const aud = `${gateway.url.origin}/mcp`;
  alice = new McpClient({ eraCache: false });
  alice.onnotification = (n) => {
    if (n.method === 'notifications/tools/list_changed') heard.alice++;
    if (n.method === 'notifications/prompts/list_changed') aliceHeard.prompts++;
    if (n.method === 'notifications/resources/list_changed') aliceHeard.resources++;
  };
  await alice.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      headers: { authorization: `Bearer ${await issuer.sign({ sub: 'alice', aud })}` },
    }),
  );
  // 2026-07-28: list changes come on a listen stream, open once acknowledged.
  expect(alice.protocolVersion).toBe('2026-07-28');
  await alice.listen({
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
  });
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
const alicePrompts = async () => (await alice.listPrompts({ fresh: true })).map((p) => p.name);
const aliceResources = async () => (await alice.listResources({ fresh: true })).map((r) => r.uri);
/** The JSON-RPC error of a call our client made (or undefined when it was answered). */
const aliceCallError = (name: string, args: Record<string, unknown>) =>
  alice.callTool({ name, arguments: args }).then(
    () => undefined,
    (error: unknown) =>
      RpcError.isInstance(error) ? { code: error.rpcCode, data: error.data } : error,
  );
const bobCallError = (name: string, args: Record<string, unknown>) =>
  bob.callTool({ name, arguments: args }).then(
    () => undefined,
    (error: unknown) =>
      error instanceof McpError ? { code: error.code, data: error.data } : error,
  );
const refused = (reason: string) => ({
  code: -32040,
  data: expect.objectContaining({ reason }),
});
/** Failed closed: both heard it (their `n`th), list nothing, and are refused what they had. */
async function closedFor(n: { alice: number; bob: number }) {
  await heardExactly('alice', n.alice);
  await heardExactly('bob', n.bob);
  expect(await aliceTools()).toEqual([]);
  expect(await bobTools()).toEqual([]);
  expect(await aliceCallError('notes__read_note', { id: '1' })).toEqual(
    refused('policy-unreadable'),
  );
  expect(await bobCallError('files__read_note', { id: '1' })).toEqual(refused('policy-unreadable'));
}

describe('a reloaded access policy tells the sessions whose lists it changed', () => {
  it('list_changed to the callers whose lists changed, and to nobody else; what was taken away is refused; fails closed when the file does not check or is removed', async () => {
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await bobTools()).toEqual(['files__delete_note', 'files__read_note', 'files__write']);

    // alice may write notes too: only alice's list changed.
    write([{ ...rules.alice, tools: ['read_*', 'write'] }, rules.bob]);
    await heardExactly('alice', 1);
    expect(await aliceTools()).toEqual(['notes__read_note', 'notes__write']);

    // bob may no longer delete: bob hears it (his first), alice nothing (still one).
    const bobDenied = [
      { ...rules.alice, tools: ['read_*', 'write'] },
      rules.bob,
      { subject: ['bob'], servers: ['files'], tools: ['delete_*'], effect: 'deny' },
    ];
    write(bobDenied);
    await heardExactly('bob', 1);
    expect(await bobTools()).toEqual(['files__read_note', 'files__write']);
    // Not listed, and refused when called anyway (no scope would allow it).
    expect(await bobCallError('files__delete_note', { id: '1' })).toEqual(refused('policy'));
    expect(await bobCallError('files__read_note', { id: '1' })).toBeUndefined();

    // A rewrite that changes no one's view (the same rules, reordered): nobody hears it.
    const reloads = () => gateway.stderr().split('reloaded').length;
    const seen = reloads();
    write([...bobDenied].reverse());
    await waitFor(() => reloads() > seen || undefined, 'the reload');

    // alice may use server-everything: her tools, prompts and resources all change.
    expect(await alicePrompts()).toEqual([]);
    expect(await aliceResources()).toEqual([]);
    write([...bobDenied, rules.aliceEverything]);
    await heardExactly('alice', 2);
    await waitFor(
      () => (aliceHeard.prompts >= 1 && aliceHeard.resources >= 1) || undefined,
      "alice's prompts and resources list_changed",
    );
    const prompts = await alicePrompts();
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.every((p) => p.startsWith('everything__'))).toBe(true);
    expect((await aliceResources()).length).toBeGreaterThan(0);
    expect((await aliceTools()).filter((t) => t.startsWith('everything__')).length).toBeGreaterThan(
      0,
    );
    expect(await aliceCallError('everything__echo', { message: 'hi' })).toBeUndefined();

    // Taken away again (everything, and notes' write): alice hears each list, once.
    write([rules.alice, rules.bob, bobDenied[2]]);
    await heardExactly('alice', 3);
    await waitFor(
      () => (aliceHeard.prompts >= 2 && aliceHeard.resources >= 2) || undefined,
      "alice's second prompts and resources list_changed",
    );
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await alicePrompts()).toEqual([]);
    expect(await aliceResources()).toEqual([]);
    // A client that kept the old list and calls what it saw is refused.
    expect(await aliceCallError('notes__write', { path: 'a', text: 'b', root: '/' })).toEqual(
      refused('policy'),
    );
    expect(await aliceCallError('everything__echo', { message: 'hi' })).toEqual(refused('policy'));
    expect(aliceHeard).toEqual({ prompts: 2, resources: 2 });

    // Does not check: the policy fails closed, every list is empty and every call refused
    // (what was allowed too); both hear it.
    config.writeText('{ "access": { "rules": [ { "servers": "notes" } ] } }');
    await closedFor({ alice: 4, bob: 2 });

    // Fixed: both lists are back, and both hear it.
    write([rules.alice, rules.bob]);
    await heardExactly('alice', 5);
    await heardExactly('bob', 3);
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await bobTools()).toEqual(['files__delete_note', 'files__read_note', 'files__write']);

    // The file removed (cannot be read): fails closed as well, never back to allow-all.
    rmSync(config.file);
    await closedFor({ alice: 6, bob: 4 });
    expect(gateway.stderr()).toContain('every call is refused until it is fixed');

    // Written again: served again.
    write([rules.alice, rules.bob]);
    await heardExactly('alice', 7);
    await heardExactly('bob', 5);
    expect(await aliceTools()).toEqual(['notes__read_note']);
    expect(await bobCallError('files__delete_note', { id: '1' })).toBeUndefined();
    expect(aliceHeard).toEqual({ prompts: 2, resources: 2 });
  });
});
