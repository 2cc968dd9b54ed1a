import { afterEach, describe, expect, it } from 'vitest';
import { faultServer } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * `GET /healthz` of `@mcpkit/gateway` over HTTP (in-process, real backends) when a backend is connected but
 * its tools/list failed: that backend is `degraded` (with the list), the whole is
 * `degraded`, and the answer is still 200 (the gateway itself works).
 */
const TOKEN = 'gateway-health-token-0123456789abcdef';
let gateway: InProcessGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

interface Health {
  status: string;
  servers: Array<{ server: string; state: string; degraded?: string[] }>;
}

describe('mcpkit serve: /healthz', () => {
  it('a backend whose tools/list failed is degraded, with the list; the whole is degraded, 200', async () => {
    gateway = await startInProcessHttpGateway(
      {
        fine: { command: process.execPath, args: [faultServer, 'ok'] },
        broken: { command: process.execPath, args: [faultServer, 'list-error'] },
      },
      { token: TOKEN },
    );
    const url = new URL('/healthz', gateway.url);
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const read = async () => {
      const res = await fetch(url, { headers });
      const body = (await res.json()) as Health;
      body.servers.sort((a, b) => (a.server < b.server ? -1 : 1));
      return { status: res.status, body };
    };
    // Backends may still be connecting when the gateway listens: ask until both are up.
    let health = await read();
    while (!health.body.servers.every((s) => s.state === 'connected' || s.state === 'degraded'))
      health = await read();
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'degraded',
      servers: [
        { server: 'broken', state: 'degraded', degraded: ['tools'] },
        { server: 'fine', state: 'connected' },
      ],
    });
  });
});
