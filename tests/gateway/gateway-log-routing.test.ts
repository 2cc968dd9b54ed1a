import { type ChildProcess, spawn } from 'node:child_process';
import { McpClient } from '@mcpkit/client';
import type { LoggingMessageParams } from '@mcpkit/protocol';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceServer } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Issue #23 Part 1 item 6: a backend's log messages went to every client with a call
 * running on that backend. An HTTP backend sends a call's log messages on the response
 * stream of that call's request, which names it: they go to that call's client only.
 * Real parts: the @mcpkit/server conformance fixture over Streamable HTTP (a real child
 * process), the in-process gateway over HTTP, two mcpkit clients.
 */
const TOKEN = 'log-routing-token-0123456789abcdef';
let backend: ChildProcess;
let gateway: InProcessGateway;
const opened: McpClient[] = [];

beforeAll(async () => {
  backend = spawn(process.execPath, [conformanceServer, 'http'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  const url = await new Promise<string>((resolve, reject) => {
    backend.once('exit', (code) => reject(new Error(`the fixture exited (${code})`)));
    backend.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
  });
  gateway = await startInProcessHttpGateway({ conf: { type: 'http', url } }, { token: TOKEN });
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  if (backend && backend.exitCode === null) {
    const exited = new Promise((resolve) => backend.once('exit', resolve));
    backend.kill('SIGTERM');
    await exited;
  }
});

async function client(name: string, elicitation?: () => Promise<{ action: 'decline' }>) {
  const logs: LoggingMessageParams[] = [];
  const c = new McpClient({
    name,
    era: 'legacy',
    eraCache: false,
    onlog: (params) => logs.push(params),
    ...(elicitation ? { handlers: { elicitation } } : {}),
  });
  await c.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      name,
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
  );
  await c.setLoggingLevel('debug');
  opened.push(c);
  return { c, logs };
}

describe('gateway: log routing', () => {
  it("an HTTP backend's log messages for one client's call reach that client only, not another client with a call running on the same backend", async () => {
    let release!: () => void;
    const held = new Promise<{ action: 'decline' }>((resolve) => {
      release = () => resolve({ action: 'decline' });
    });
    let heldAsked!: () => void;
    const asked = new Promise<void>((resolve) => {
      heldAsked = resolve;
    });
    const waiting = await client('waiting', () => {
      heldAsked();
      return held;
    });
    const logging = await client('logging');
    // waiting's call runs on the backend (held in its elicitation) while logging's call logs.
    const waitingCall = waiting.c.callTool({
      name: 'conf__test_elicitation',
      arguments: { message: 'hold' },
    });
    await asked;
    await logging.c.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
    release();
    await waitingCall;
    expect(logging.logs.map((l) => l.data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    expect(waiting.logs).toEqual([]);
  });
});
