import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { conformanceServer, faultServer, startHttpGateway } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * The gateway serves the manager's lists (one list cache): a backend is asked for its lists
 * by the manager only, a failed list is reported once (by the manager, whose state says
 * `degraded`), and a backend's `list_changed` still reaches the gateway's clients.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function logDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-one-list-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function inProcess(servers: Record<string, unknown>): Promise<InProcessGateway> {
  const gateway = await startInProcessHttpGateway(servers);
  cleanups.push(() => gateway.close());
  return gateway;
}

async function clientOf(url: URL, onlistchanged?: (list: string) => void): Promise<McpClient> {
  const client = new McpClient({
    name: 'one-list',
    era: 'legacy',
    eraCache: false,
    ...(onlistchanged ? { onlistchanged } : {}),
  });
  await client.connect(new StreamableHttpTransport({ url, name: 'gateway' }));
  cleanups.push(() => client.close());
  return client;
}

/** The lines of `text` that report the failed tools/list of the fixture's "broken" backend. */
const failureLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.includes('broken') && l.includes('the tool registry is unavailable'));

describe('@mcpkit/gateway serves the manager lists', () => {
  it('a backend is asked tools/list once (by the manager); a failed list is reported once and the state says degraded', async () => {
    const dir = logDir();
    const fineLog = path.join(dir, 'fine.log');
    const gateway = await inProcess({
      fine: { command: process.execPath, args: [faultServer, 'ok', fineLog] },
      broken: { command: process.execPath, args: [faultServer, 'list-error'] },
    });
    const client = await clientOf(gateway.url);
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toContain('fine__echo');
    expect(names.some((n) => n.startsWith('broken__'))).toBe(false);
    const requests = readFileSync(fineLog, 'utf8')
      .split('\n')
      .filter((l) => l === 'tools/list');
    expect(requests).toEqual(['tools/list']);
    expect(failureLines(gateway.stderr())).toHaveLength(1);
    const broken = gateway.manager.state('broken');
    expect(broken?.state).toBe('connected');
    expect(broken?.state === 'connected' && broken.degraded?.map((f) => f.list)).toEqual(['tools']);
  });

  it("a backend's tools/list_changed reaches the gateway's client, with the new tool", async () => {
    const gateway = await inProcess({
      conf: { command: process.execPath, args: [conformanceServer, 'stdio'] },
    });
    const heard: string[] = [];
    let changed!: () => void;
    const tools = new Promise<void>((resolve) => {
      changed = resolve;
    });
    const client = await clientOf(gateway.url, (list) => {
      heard.push(list);
      if (list === 'tools') changed();
    });
    expect((await client.listTools()).map((t) => t.name)).not.toContain('conf__test_dynamic_tool');
    await client.callTool({ name: 'conf__test_trigger_tool_change', arguments: {} });
    await tools;
    expect((await client.listTools({ fresh: true })).map((t) => t.name)).toContain(
      'conf__test_dynamic_tool',
    );
    expect(heard.filter((l) => l === 'tools')).toEqual(['tools']);
  });
});

describe('mcpkit serve (the built CLI)', () => {
  it("prints a backend's failed list once", async () => {
    const gateway = await startHttpGateway({
      fine: { command: process.execPath, args: [faultServer, 'ok'] },
      broken: { command: process.execPath, args: [faultServer, 'list-error'] },
    });
    cleanups.push(() => gateway.close());
    const client = new McpClient({ name: 'one-list', era: 'legacy', eraCache: false });
    await client.connect(
      new StreamableHttpTransport({
        url: gateway.url,
        name: 'gateway',
        headers: gateway.headers,
      }),
    );
    expect((await client.listTools()).map((t) => t.name)).toContain('fine__echo');
    await client.close();
    // Both backends settled (the failed list seen): what follows is all there is to print.
    const health = new URL('/healthz', gateway.url);
    for (;;) {
      const body = (await (await fetch(health, { headers: gateway.headers })).json()) as {
        servers: Array<{ server: string; state: string }>;
      };
      if (body.servers.find((s) => s.server === 'broken')?.state === 'degraded') break;
    }
    // Everything the run printed, up to its exit.
    await gateway.close();
    expect(failureLines(gateway.stderr())).toHaveLength(1);
  });
});
