import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import type { ElicitResult } from '@mcpkit/protocol';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Issue #23 Part 1 item 6: a client that never answers a forwarded elicitation must not
 * block that stdio backend's elicitations for the other clients, and its disconnect ends
 * its own at once. Real parts: a small real MCP server over stdio (whose requests name no
 * call), the in-process gateway over HTTP, two mcpkit clients over Streamable HTTP.
 */
const server = fileURLToPath(new URL('./between-backends-server.mjs', import.meta.url));
const TOKEN = 'unanswered-elicitation-token-0123456789';
let gateway: InProcessGateway | undefined;
const opened: McpClient[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  gateway = undefined;
});

async function client(name: string, answer: () => ElicitResult | Promise<ElicitResult>) {
  const asked = { count: 0 };
  const c = new McpClient({
    name,
    era: 'legacy',
    eraCache: false,
    handlers: {
      elicitation: () => {
        asked.count++;
        return answer();
      },
    },
  });
  await c.connect(
    new StreamableHttpTransport({
      url: gateway!.url,
      name,
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
  );
  opened.push(c);
  return { c, asked };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('gateway: an elicitation a client never answers', () => {
  it("does not block the stdio backend's elicitation for another client", async () => {
    gateway = await startInProcessHttpGateway(
      { b: { command: process.execPath, args: [server, 'b'] } },
      { token: TOKEN },
    );
    const silent = await client('silent', () => new Promise<never>(() => {}));
    const quick = await client('quick', () => ({ action: 'accept', content: { ok: true } }));
    const pending = silent.c
      .callTool({ name: 'b__elicit', arguments: { message: 'for silent' } })
      .catch(() => undefined);
    await waitFor(() => silent.asked.count === 1, "the silent client's elicitation");
    const result = await quick.c.callTool({
      name: 'b__elicit',
      arguments: { message: 'for quick' },
    });
    expect(textOf(result)).toBe('{"action":"accept","content":{"ok":true}}');
    expect(quick.asked.count).toBe(1);
    expect(silent.asked.count).toBe(1);
    void pending;
  });

  it("is cancelled as soon as its client disconnects: the backend's request fails at once", async () => {
    gateway = await startInProcessHttpGateway(
      { b: { command: process.execPath, args: [server, 'b'] } },
      { token: TOKEN },
    );
    const silent = await client('silent', () => new Promise<never>(() => {}));
    const other = await client('other', () => ({ action: 'decline' }));
    void silent.c
      .callTool({ name: 'b__elicit', arguments: { message: 'for silent' } })
      .catch(() => undefined);
    await waitFor(() => silent.asked.count === 1, "the silent client's elicitation");
    await silent.c.close();
    // The backend's elicit call got its answer: an error, not the 60 s wait.
    const outcomes = await other.c.callTool({ name: 'b__outcomes', arguments: { count: 1 } });
    expect(JSON.parse(textOf(outcomes))).toEqual([expect.stringMatching(/^error -?\d+ /)]);
  });
});
