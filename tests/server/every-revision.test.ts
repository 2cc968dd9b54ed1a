import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaCheckedTransport } from '../support/schema-check.js';
import { fixture, startHttpFixture } from './support/servers.js';

/**
 * Version negotiation: a client pinned to each published revision gets exactly that
 * revision (2024-11-05 … 2025-11-25 through initialize, 2026-07-28 through discover), and
 * what the server sends fits the official schema of that revision.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const revisions = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

describe.each(revisions)('a client pinned to %s', (version) => {
  it.each(['stdio', 'http'])(
    'over %s gets that revision and schema-valid messages',
    async (binding) => {
      let inner: StdioTransport | StreamableHttpTransport;
      if (binding === 'stdio') {
        inner = new StdioTransport({ command: process.execPath, args: [fixture, 'stdio'] });
      } else {
        const http = await startHttpFixture();
        cleanups.push(() => http.close());
        inner = new StreamableHttpTransport({ url: http.url });
      }
      const check = new SchemaCheckedTransport(inner, 'received');
      const client = new McpClient({ protocolVersion: version, eraCache: false });
      await client.connect(check);
      cleanups.push(() => client.close());
      expect(client.protocolVersion).toBe(version);
      await client.listTools();
      await client.listPrompts();
      await client.listResources();
      await client.listResourceTemplates();
      await client.callTool({ name: 'test_simple_text' });
      await client.callTool({ name: 'test_multiple_content_types' });
      await client.readResource('test://static-binary');
      await client.getPrompt('test_prompt_with_image');
      expect(check.problems()).toEqual([]);
    },
  );
});
