import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { createGatewayEndpoints, GatewayEndpoints, parseGatewayConfig } from '@mcpkit/gateway';
import { listenHttp } from '@mcpkit/gateway/node';
import { McpManager } from '@mcpkit/manager';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { composeBackends } from './compose-support.js';

/**
 * The library wiring of composition (what `mcpkit serve` does with flags): a manager of two
 * real echo backends, `createGatewayEndpoints`, `listenHttp({ endpoints })`, our McpClient;
 * transforms that do not fit a backend's tool, found when it lists.
 */
const TOKEN = 'compose-library-token-0123456789abcdef';
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-compose-lib-'));
let warnings = '';
let manager: McpManager;
let endpoints: GatewayEndpoints;
let listener: Awaited<ReturnType<typeof listenHttp>>;
const opened: McpClient[] = [];

const config = (text: string) => parseGatewayConfig(text, { file: 'test.jsonc' });

beforeAll(async () => {
  const entries = Object.entries(composeBackends()).map(
    ([name, c]) =>
      ({
        name,
        scope: 'user',
        source: 'test',
        config: c as ServerConfig,
        status: 'enabled',
        reason: 'test entry',
        policy: { allowed: true },
      }) as ResolvedServer,
  );
  manager = new McpManager({
    servers: entries,
    clientInfo: { name: 'compose-lib', version: '0.0.0' },
    // Made before the endpoints: its handlers find them when a backend asks.
    handlers: GatewayEndpoints.handlers(() => endpoints),
    env: { PATH: process.env.PATH ?? '', HOME: home },
    home,
  });
  endpoints = createGatewayEndpoints({
    manager,
    servers: entries.map((e) => e.name),
    info: { name: 'compose-lib', version: '0.0.0' },
    callTimeoutMs: 30_000,
    warn: (text) => {
      warnings += `${text}\n`;
    },
    config: config(`{
      "servers": { "notes": { "tools": {
        "write": { "arguments": { "nope": { "hide": true }, "root": { "hide": true } } },
        "read_note": { "name": "note" }
      } } },
      "endpoints": { "notes-only": { "servers": ["notes"] } }
    }`),
  });
  await manager.connectAll();
  await endpoints.start();
  listener = await listenHttp(endpoints.default, { port: 0, token: TOKEN, endpoints });
}, 60_000);

afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await listener?.close();
  await endpoints?.close();
  await manager?.close();
  rmSync(home, { recursive: true, force: true });
});

async function connect(endpoint?: string, onlistchanged?: () => void): Promise<McpClient> {
  const url = new URL(endpoint ? `${listener.url.href}/${endpoint}` : listener.url.href);
  const client = new McpClient({
    name: 'ours',
    era: 'legacy',
    eraCache: false,
    ...(onlistchanged ? { onlistchanged } : {}),
  });
  await client.connect(
    new StreamableHttpTransport({
      url,
      name: 'gateway',
      headers: { authorization: `Bearer ${TOKEN}` },
    }),
  );
  opened.push(client);
  return client;
}

describe('composition through the library', () => {
  it('a tool whose transforms do not fit (an argument it lacks, a required one hidden without a value) is not served, and the warning says why', async () => {
    const client = await connect();
    const names = (await client.listTools({ fresh: true })).map((t) => t.name).sort();
    expect(names).toEqual([
      'files__delete_note',
      'files__read_note',
      'files__write',
      'note',
      'notes__delete_note',
    ]);
    expect(warnings).toContain(
      'tool "write" of server "notes" has no argument "nope"; the tool is not served',
    );
    expect(warnings).toContain('argument "root" is required, so hiding it needs a "value"');
  });

  it('compose(view) through reconfigure: the endpoint’s client hears list_changed and lists the new set', async () => {
    let changed = 0;
    const client = await connect('notes-only', () => {
      changed++;
    });
    expect((await client.listTools({ fresh: true })).map((t) => t.name).sort()).toEqual([
      'note',
      'notes__delete_note',
    ]);
    await endpoints.reconfigure(
      config(`{
        "servers": { "notes": { "prefix": "n", "tools": { "write": { "arguments": { "root": { "hide": true, "value": "/r" } } } } } },
        "endpoints": { "notes-only": { "servers": ["notes"] } }
      }`),
    );
    await waitFor(() => changed > 0, 'list_changed');
    expect((await client.listTools({ fresh: true })).map((t) => t.name).sort()).toEqual([
      'n__delete_note',
      'n__read_note',
      'n__write',
    ]);
    const result = await client.callTool({ name: 'n__write', arguments: { path: 'p', text: 't' } });
    expect(JSON.stringify(result.content)).toContain(
      'notes write {\\"path\\":\\"p\\",\\"text\\":\\"t\\",\\"root\\":\\"/r\\"}',
    );
  });
});
