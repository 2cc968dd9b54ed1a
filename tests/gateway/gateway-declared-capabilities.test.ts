import { McpClient } from '@mcpkit/client';
import type { ElicitRequestParams } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Issue #23 Part 1 item 7: what the gateway declares to its backends. A 2025 backend sees
 * only the gateway's client capabilities, fixed at its `initialize`: the gateway declares
 * all it can forward, and refuses per call what the calling client lacks. Real parts:
 * server-everything over stdio (it registers some tools only for clients that declared
 * the capability they need), the in-process gateway over HTTP, mcpkit clients.
 */
const TOKEN = 'declared-capabilities-token-0123456789';
let gateway: InProcessGateway;
const opened: McpClient[] = [];

beforeAll(async () => {
  gateway = await startInProcessHttpGateway(
    { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
    { token: TOKEN },
  );
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
});

/** A client that can answer everything the gateway forwards, in the modes given. */
function everythingClient(
  name: string,
  modes: Array<'form' | 'url'>,
  asked: ElicitRequestParams[],
) {
  return new McpClient({
    name,
    era: 'legacy',
    eraCache: false,
    handlers: {
      elicitation: (params) => {
        asked.push(params);
        return { action: 'decline' };
      },
      elicitationModes: modes,
      sampling: () => ({
        role: 'assistant',
        content: { type: 'text', text: 'sampled' },
        model: 'test-model',
      }),
      samplingTools: true,
      roots: () => [],
    },
  });
}

async function throughGateway(name: string, modes: Array<'form' | 'url'>) {
  const asked: ElicitRequestParams[] = [];
  const c = everythingClient(name, modes, asked);
  await c.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      name,
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
  );
  opened.push(c);
  return { c, asked };
}

describe('gateway: the client capabilities it declares to its backends', () => {
  it('server-everything lists as many tools through the gateway as directly (its URL-elicitation tool included)', async () => {
    const direct = everythingClient('direct', ['form', 'url'], []);
    await direct.connect(
      new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'] }),
    );
    opened.push(direct);
    const directNames = (await direct.listTools()).map((t) => t.name).sort();
    expect(directNames).toContain('trigger-url-elicitation');
    const { c } = await throughGateway('through', ['form', 'url']);
    const served = (await c.listTools())
      .map((t) => t.name)
      .filter((n) => n.startsWith('everything__'))
      .map((n) => n.slice('everything__'.length))
      .sort();
    expect(served).toEqual(directNames);
  });

  it('a URL elicitation reaches a client that declared URL mode', async () => {
    const { c, asked } = await throughGateway('url-client', ['form', 'url']);
    await c.callTool({
      name: 'everything__trigger-url-elicitation',
      arguments: { url: 'https://example.com/consent', message: 'Open the consent page' },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'url', url: 'https://example.com/consent' });
  });

  it('a URL elicitation for a client that declared only form mode is refused with -32602 naming elicitation.url', async () => {
    const { c, asked } = await throughGateway('form-client', ['form']);
    const result = await c.callTool({
      name: 'everything__trigger-url-elicitation',
      arguments: { url: 'https://example.com/consent', message: 'Open the consent page' },
    });
    expect(asked).toHaveLength(0);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'did not declare the \\"elicitation.url\\" capability',
    );
  });
});
