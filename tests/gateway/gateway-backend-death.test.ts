import type { ChildProcess } from 'node:child_process';
import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startSdkServer, stopServer } from '../manager/sdk-v1-http.js';
import { faultServer, resultText } from './gateway-process.js';
import { startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * A call that reaches `@mcpkit/gateway` (in-process, over HTTP) just after one of its backends was killed (kill -9),
 * before the gateway has noticed: SERVE.md promises that it waits for the reconnect rather
 * than failing with "connection closed". The request never reached the dead backend, so it
 * goes to the next one.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function gatewayClient(servers: Record<string, unknown>): Promise<McpClient> {
  const gateway = await startInProcessHttpGateway(servers);
  cleanups.push(() => gateway.close());
  const client = new McpClient({ name: 'gateway', era: 'legacy', eraCache: false });
  await client.connect(new StreamableHttpTransport({ url: gateway.url, name: 'gateway' }));
  cleanups.push(() => client.close());
  return client;
}

const faultBackend = { fault: { command: process.execPath, args: [faultServer, 'ok'] } };

describe('a gateway call sent as its backend dies', () => {
  // Four rounds: a fifth early death within a minute trips the stdio crash-loop breaker.
  it('stdio backend killed with SIGKILL and a read-only tool called at once: sent again on the restarted backend, every round', async () => {
    const client = await gatewayClient(faultBackend);
    let pid = Number(resultText(await client.callTool({ name: 'fault__pid' })));
    for (let round = 1; round <= 4; round++) {
      process.kill(pid, 'SIGKILL');
      const result = await client.callTool({
        name: 'fault__echo',
        arguments: { text: `r${round}` },
      });
      expect(result.isError, `round ${round}: ${resultText(result)}`).toBeFalsy();
      expect(resultText(result)).toBe(`r${round}`);
      const next = Number(resultText(await client.callTool({ name: 'fault__pid' })));
      expect(next).not.toBe(pid);
      pid = next;
    }
  });

  it('HTTP backend killed with SIGKILL, the call sent at once while it restarts: it waits for the reconnect and reaches the new server, every round', async () => {
    const port = await freePort();
    let backend: ChildProcess = await startSdkServer(port, 0);
    cleanups.push(() => stopServer(backend, 'SIGTERM'));
    const client = await gatewayClient({
      sdk: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    });
    const whoami = async () => {
      const result = await client.callTool({ name: 'sdk__whoami' });
      expect(result.isError, resultText(result)).toBeFalsy();
      return JSON.parse(resultText(result)) as { generation: string };
    };
    expect((await whoami()).generation).toBe('0');
    // Two rounds: each costs the backend two reconnect attempts (the refused call's drop and
    // the call's own immediate attempt), and a third round would pass the fast phase's five,
    // after which the manager waits a minute between attempts.
    for (let round = 1; round <= 2; round++) {
      await stopServer(backend);
      const answer = whoami();
      backend = await startSdkServer(port, round);
      expect((await answer).generation, `round ${round}`).toBe(String(round));
    }
  });
});
