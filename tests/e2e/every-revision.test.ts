import { McpClient } from '@mcpkit/client';
import { LEGACY_VERSIONS } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { SchemaCheckedTransport } from '../support/schema-check.js';

/**
 * Each handshake-era revision, pinned, against server-everything (which speaks them all):
 * the same calls work, and every message sent validates against that revision's schema.
 */
describe.each([...LEGACY_VERSIONS])('pinned to %s against server-everything (stdio)', (version) => {
  it('negotiates it, lists and calls tools, reads a resource, gets a prompt, pings', async () => {
    const checked = new SchemaCheckedTransport(
      new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'] }),
    );
    const client = new McpClient({ protocolVersion: version });
    await client.connect(checked);
    try {
      expect(client.era).toBe('legacy');
      expect(client.protocolVersion).toBe(version);
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get-sum');
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(JSON.stringify(sum.content)).toMatch(/\b5\b/);
      const resources = await client.listResources();
      const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))!;
      expect((await client.readResource(doc.uri)).contents[0]!.uri).toBe(doc.uri);
      const prompt = await client.getPrompt('args-prompt', { city: 'Lisbon', state: 'Lisboa' });
      expect(prompt.messages).toHaveLength(1);
      await client.setLoggingLevel('error');
      await client.ping();
      // Pinned: no probe; every message under this revision and valid for it.
      expect(checked.sent.every((s) => s.version === version)).toBe(true);
      expect(checked.problems()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
