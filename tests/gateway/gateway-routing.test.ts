import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { startEverythingHttp } from '../support/everything-http.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Where a backend's server→client request goes when several clients call the same backend
 * at once (issue #14): to the client whose call caused it, never to another one. Real
 * parts: the built CLI, server-everything over Streamable HTTP (its elicitation arrives on
 * the response stream of the gateway's call, which names the call) and over stdio (which
 * names nothing), and two SDK v1 clients over HTTP.
 */
let everythingHttp: Awaited<ReturnType<typeof startEverythingHttp>>;
let gateway: InProcessGateway;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  everythingHttp = await startEverythingHttp('streamableHttp');
  gateway = await startInProcessHttpGateway({
    web: { type: 'http', url: `${everythingHttp.base}/mcp` },
    local: { command: process.execPath, args: [everythingEntry, 'stdio'] },
  });
}, 60_000);

afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  await everythingHttp?.close();
});

/**
 * Two SDK v1 clients that declare elicitation. Each handler holds its answer until
 * `release()`, which happens by itself once two elicitations were delivered (to whichever
 * client), so both backend requests are pending at the same time when they are routed.
 */
async function twoClients() {
  const seen = { a: 0, b: 0 };
  let delivered = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let firstDelivery!: () => void;
  const oneDelivered = new Promise<void>((resolve) => {
    firstDelivery = resolve;
  });
  const make = async (who: 'a' | 'b') => {
    const client = new ClientV1(
      { name: `routing-${who}`, version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => {
      seen[who]++;
      firstDelivery();
      if (++delivered === 2) release();
      await released;
      return { action: 'accept', content: { color: who, name: who, email: `${who}@example.com` } };
    });
    await client.connect(new HttpV1(gateway.url));
    opened.push(client);
    return client;
  };
  return { a: await make('a'), b: await make('b'), seen, oneDelivered, release };
}

const elicit = (client: ClientV1, tool: string) =>
  client.callTool({ name: tool, arguments: {} }).then((r) => JSON.stringify(r.content));

describe('mcpkit serve: routing of backend requests between concurrent clients', () => {
  it('an HTTP backend: two clients calling at once each get only their own elicitation', async () => {
    const { a, b, seen } = await twoClients();
    const [ra, rb] = await Promise.all([
      elicit(a, 'web__trigger-elicitation-request'),
      elicit(b, 'web__trigger-elicitation-request'),
    ]);
    expect(seen).toEqual({ a: 1, b: 1 });
    // Each answer went back to the call that asked for it.
    expect(ra).toContain('a@example.com');
    expect(rb).toContain('b@example.com');
  });

  it("a stdio backend (its requests name no call): while a's elicitation waits for a, b's goes to b, not to a, and each answer to its own call", async () => {
    const { a, b, seen, oneDelivered } = await twoClients();
    const first = elicit(a, 'local__trigger-elicitation-request');
    // a's elicitation is delivered (one caller: unambiguous) and held; then b calls. a's call
    // is waiting for a, so the backend's next request (naming no call) can only be b's.
    await oneDelivered;
    const second = await elicit(b, 'local__trigger-elicitation-request');
    expect(seen).toEqual({ a: 1, b: 1 });
    expect(second).toContain('b@example.com');
    expect(second).not.toContain('a@example.com');
    expect(await first).toContain('a@example.com');
  });
});
