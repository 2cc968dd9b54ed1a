import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { MessageTooLargeError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { resultText } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * `createGateway({ describeError })`: the host words a backend's failure for the gateway's
 * client from the error's facts (here `MessageTooLargeError.limitBytes`), with no transport
 * patched. In-process, a real stdio backend whose answer is over the transports' limit.
 */
const LIMIT = 4096;
const probe = {
  command: process.execPath,
  args: [fileURLToPath(new URL('./roots-probe-server.mjs', import.meta.url))],
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function connect(
  describeError?: (error: unknown, server: string) => string | undefined,
): Promise<McpClient> {
  const gateway: InProcessGateway = await startInProcessHttpGateway(
    { probe },
    { maxMessageBytes: LIMIT, ...(describeError ? { describeError } : {}) },
  );
  cleanups.push(() => gateway.close());
  const client = new McpClient({ name: 'describe-error-test', era: 'legacy', eraCache: false });
  await client.connect(new StreamableHttpTransport({ url: gateway.url }));
  cleanups.push(() => client.close());
  return client;
}

describe('@mcpkit/gateway describeError', () => {
  it("words a backend's over-limit answer from the error's facts, as the tool result's whole text", async () => {
    const seen: unknown[] = [];
    const client = await connect((error, server) => {
      seen.push(error);
      return MessageTooLargeError.isInstance(error)
        ? `${server}: over ${error.limitBytes} bytes`
        : undefined;
    });
    const over = await client.callTool({ name: 'probe__big', arguments: { bytes: LIMIT * 2 } });
    expect(over.isError).toBe(true);
    expect(resultText(over)).toBe(`probe: over ${LIMIT} bytes`);
    expect(seen.some((e) => MessageTooLargeError.isInstance(e))).toBe(true);
    // A call that succeeds is not touched.
    const under = await client.callTool({ name: 'probe__big', arguments: { bytes: 10 } });
    expect(resultText(under)).toBe('x'.repeat(10));
  });

  it("returning undefined (or no describeError) keeps the backend's own message", async () => {
    const client = await connect(() => undefined);
    const over = await client.callTool({ name: 'probe__big', arguments: { bytes: LIMIT * 2 } });
    expect(over.isError).toBe(true);
    // The library's own sentence: the facts, with no advice (no option or flag named).
    expect(resultText(over)).toContain(`a message over the ${LIMIT}-byte limit`);
    expect(resultText(over)).not.toContain('--max-message-bytes');
  });
});
