import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { McpClient } from '@mcpkit/client';
import { type ReconnectEvent, StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';

const fixture = new URL('../fixtures/sdk-v1-http-server.mjs', import.meta.url);

interface ServerEvent {
  event: string;
  port?: number;
  method?: string;
  session?: string;
  status?: number;
}

/** The official SDK v1 Streamable HTTP server in a child process, with its events in order. */
class SdkV1Server {
  readonly events: ServerEvent[] = [];
  private waiters: Array<{ test: (e: ServerEvent) => boolean; resolve: (e: ServerEvent) => void }> =
    [];
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;

  constructor(port: number) {
    this.child = spawn(process.execPath, [fixture.pathname], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.exited = once(this.child, 'exit');
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const event = JSON.parse(line) as ServerEvent;
      this.events.push(event);
      const due = this.waiters.filter((w) => w.test(event));
      this.waiters = this.waiters.filter((w) => !due.includes(w));
      for (const w of due) w.resolve(event);
    });
  }

  /** The first event (already seen or still to come) that passes `test`. */
  waitFor(test: (e: ServerEvent) => boolean): Promise<ServerEvent> {
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

const servers: SdkV1Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});

async function startServer(port = 0): Promise<{ server: SdkV1Server; port: number }> {
  const server = new SdkV1Server(port);
  servers.push(server);
  const listening = await server.waitFor((e) => e.event === 'listening');
  return { server, port: listening.port! };
}

describe('Streamable HTTP session renewal against the official SDK v1 server', () => {
  it('after the server restarts, the old standalone stream ends and one new stream opens under the new session (no 409 loop, no false "stream lost")', async () => {
    const { server: first, port } = await startServer();
    const url = `http://127.0.0.1:${port}/mcp`;
    const reconnects: Array<ReconnectEvent & { at: number }> = [];
    let reconnectSeen: (() => void) | undefined;
    const transport = new StreamableHttpTransport({
      url,
      name: 'sdk-v1',
      // Even waits, each longer than a renewal takes, and no giving up while the server is down.
      reconnect: { initialDelayMs: 500, growthFactor: 1, maxAttempts: 1000 },
      onreconnect: (event) => {
        reconnects.push({ ...event, at: Date.now() });
        reconnectSeen?.();
      },
    });
    const client = new McpClient({ name: 'sdk-v1' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    try {
      await client.connect(transport);
      const oldSession = transport.sessionId!;
      await first.waitFor((e) => e.event === 'get' && e.session === oldSession && e.status === 200);

      // The server dies without a word; the client notices its standalone stream ended.
      const dropped = new Promise<void>((resolve) => {
        reconnectSeen = resolve;
      });
      await first.kill();
      await dropped;

      const { server: second } = await startServer(port);
      // The old stream's loop asks the new server for the forgotten session (refused with 400,
      // as the SDK's example server does) and waits before its next attempt: renew now, in
      // that wait. The next call meets 404 for the old session and renews it transparently.
      await second.waitFor((e) => e.event === 'get' && e.session === oldSession);
      const result = await client.callTool({ name: 'ping', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
      const newSession = transport.sessionId!;
      expect(newSession).not.toBe(oldSession);
      await second.waitFor(
        (e) => e.event === 'get' && e.session === newSession && e.status === 200,
      );

      // The old stream's loop, had it survived, was due again at most one announced delay
      // after its last attempt: let that moment pass, then one round trip more.
      const last = reconnects.at(-1)!;
      await delay(Math.max(0, last.at + last.delayMs - Date.now()));
      await client.callTool({ name: 'ping', arguments: {} });

      const gets = second.events.filter((e) => e.event === 'get');
      expect(
        gets.filter((e) => e.status === 409),
        'GETs refused as a second stream',
      ).toEqual([]);
      expect(
        gets.filter((e) => e.session === newSession && e.status === 200),
        'one standalone stream under the new session',
      ).toHaveLength(1);
      expect(
        // The reason ends with the status ("GET <url> → 409"); the URL's port may hold "409".
        reconnects.filter((e) => /→ 409\b/.test(e.reason)),
        'no reconnect attempt refused with 409',
      ).toEqual([]);
      expect(errors.map((e) => e.message)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
