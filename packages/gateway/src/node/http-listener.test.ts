import { McpManager } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../gateway.js';
import { listenHttp } from './http-listener.js';

describe('listenHttp', () => {
  it('refuses to bind a non-loopback address without a bearer token (before binding anything)', async () => {
    await using manager = new McpManager({ servers: [] });
    const gateway = new Gateway({
      manager,
      servers: [],
      info: { name: 'test', version: '0' },
      callTimeoutMs: 1000,
      warn: () => {},
    });
    await expect(
      listenHttp(gateway, { host: '0.0.0.0', port: 0, token: undefined }),
    ).rejects.toThrow(/needs a bearer token/);
    await gateway.close();
  });

  it('serves /healthz on loopback with a token: 401 without it, states with it', async () => {
    await using manager = new McpManager({ servers: [] });
    const gateway = new Gateway({
      manager,
      servers: [],
      info: { name: 'test', version: '0' },
      callTimeoutMs: 1000,
      warn: () => {},
    });
    const face = await listenHttp(gateway, {
      host: '127.0.0.1',
      port: 0,
      token: 'x'.repeat(32),
    });
    try {
      const health = new URL('/healthz', face.url);
      expect((await fetch(health)).status).toBe(401);
      const ok = await fetch(health, { headers: { Authorization: `Bearer ${'x'.repeat(32)}` } });
      expect(await ok.json()).toEqual({ status: 'ok', servers: [] });
    } finally {
      await face.close();
      await gateway.close();
    }
  });
});
