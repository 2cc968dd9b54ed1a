import { readFileSync } from 'node:fs';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { composeBackends, configFile } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * The audit lines of calls that finish together are written together. A running `mcpkit
 * serve --http` (the built CLI, a real child process) that is stopped right after its calls
 * has every line in the file, once.
 */
const TOKEN = 'audit-exit-token-0123456789abcdef';
let gateway: HttpGateway | undefined;
let config: ReturnType<typeof configFile> | undefined;
afterEach(async () => {
  await gateway?.close();
  config?.cleanup();
});

describe('audit lines when the gateway stops', () => {
  it('N calls (16 in flight) and then SIGTERM: exactly N lines, each with its sizes', async () => {
    config = configFile({
      auth: { static: { subject: 'ci-bot' } },
      access: {
        rules: [{ subject: ['ci-bot'], servers: ['notes'] }],
        audit: { file: 'audit.log' },
      },
    });
    const auditFile = path.join(path.dirname(config.file), 'audit.log');
    gateway = await startHttpGateway({ notes: composeBackends().notes }, [
      '--token',
      TOKEN,
      '--gateway-config',
      config.file,
    ]);
    const client = new McpClient({ eraCache: false });
    await client.connect(
      new StreamableHttpTransport({
        url: gateway.url,
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    );
    const N = 96;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) {
          const id = String(next++);
          await client.callTool({ name: 'notes__read_note', arguments: { id } });
        }
      }),
    );
    const exited = new Promise((resolve) => gateway!.child.once('exit', resolve));
    gateway.child.kill('SIGTERM');
    await exited;
    await client.close().catch(() => {});
    const lines = readFileSync(auditFile, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(N);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(new Set(records.map((r) => r.outcome))).toEqual(new Set(['ok']));
    for (const r of records) {
      expect(r.requestBytes).toBeGreaterThan(0);
      expect(r.responseBytes).toBeGreaterThan(0);
    }
  });
});
