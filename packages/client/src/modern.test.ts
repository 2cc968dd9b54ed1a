import { JsonRpcPeer, RpcError } from '@mcpkit/jsonrpc';
import { eraOf, McpErrorCode, MetaKey, PROTOCOL_VERSIONS } from '@mcpkit/protocol';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { McpClient } from './index.js';
import { versionEra } from './modern.js';

describe('versionEra', () => {
  it("gives protocol's eraOf answer for every revision protocol knows", () => {
    for (const version of PROTOCOL_VERSIONS) expect(versionEra(version)).toBe(eraOf(version));
  });

  it('reads a revision dated after the newest known one as stateless, and anything else as none', () => {
    expect(versionEra('2027-01-01')).toBe('modern');
    expect(versionEra('2024-01-01')).toBeUndefined();
    expect(versionEra('2025-01-01')).toBeUndefined();
  });
});

describe('a later-dated revision offered by the host', () => {
  it('is probed first, and the -32022 answer brings the client to a revision both speak', async () => {
    const [clientEnd, serverEnd] = createInProcessPair();
    const server = new JsonRpcPeer(serverEnd);
    const probed: string[] = [];
    server.setRequestHandler('server/discover', (p: { _meta: Record<string, unknown> }) => {
      const version = p._meta[MetaKey.ProtocolVersion] as string;
      probed.push(version);
      if (version !== '2026-07-28') {
        throw new RpcError(McpErrorCode.UnsupportedProtocolVersion, 'unsupported version', {
          supported: ['2026-07-28'],
        });
      }
      return { supportedVersions: ['2026-07-28'], capabilities: {} };
    });
    await server.start();
    const client = new McpClient({
      eraCache: false,
      supportedVersions: ['2027-01-01', '2026-07-28', '2025-11-25'],
    });
    await client.connect(clientEnd);
    expect(probed).toEqual(['2027-01-01', '2026-07-28']);
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    await client.close();
    await server.close();
  });
});
