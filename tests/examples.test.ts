import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as gatewayEmbed } from '../examples/gateway-embed.js';
import { main as httpClient } from '../examples/http-client.js';
import { main as jsonRpcInProcess } from '../examples/json-rpc-in-process.js';
import { main as resolveConfig } from '../examples/resolve-config.js';
import { main as stdioClient } from '../examples/stdio-client.js';
import { main as websocketClient } from '../examples/websocket-client.js';
import { startEverythingHttp } from './support/everything-http.js';
import { startWsServer } from './support/ws-server.js';

// The examples are real programs; running them here keeps them working.
describe('examples', () => {
  it('gateway-embed.ts: two servers behind one gateway over HTTP', async () => {
    expect(await gatewayEmbed()).toMatch(/^(\d+) \+ \1 tools; b__get-sum → .*\b5\b/);
  });

  it('json-rpc-in-process.ts', async () => {
    expect(await jsonRpcInProcess()).toBe(
      'count → {"counted":3} after progress 1,2,3; sleep timed out: true',
    );
  });

  it('stdio-client.ts', async () => {
    expect(await stdioClient()).toMatch(/^\d+ tools; get-sum\(2, 3\) → .*\b5\b/);
  });

  it('http-client.ts, direct and with the fallback', async () => {
    const http = await startEverythingHttp('streamableHttp');
    const sse = await startEverythingHttp('sse');
    try {
      expect(await httpClient(`${http.base}/mcp`)).toMatch(/^\d+ tools over streamable-http$/);
      expect(await httpClient(`${sse.base}/sse`, { fallback: true })).toMatch(
        /^\d+ tools over sse$/,
      );
    } finally {
      await http.close();
      await sse.close();
    }
  });

  it('websocket-client.ts', async () => {
    const server = await startWsServer((peer) => peer.setRequestHandler('echo', (p) => p));
    try {
      expect(await websocketClient(server.url)).toEqual({ hello: 'over websocket' });
    } finally {
      await server.kill();
    }
  });

  it('resolve-config.ts', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-example-'));
    try {
      mkdirSync(path.join(dir, 'home'));
      writeFileSync(
        path.join(dir, '.mcp.json'),
        JSON.stringify({ mcpServers: { docs: { command: 'docs-server' } } }),
      );
      expect(await resolveConfig(dir, path.join(dir, 'home'))).toEqual([
        expect.stringMatching(
          /^docs \(project\): pending-approval — project server from .* waits for approval/,
        ),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
