import { afterEach, describe, expect, it } from 'vitest';
import {
  initializeBody as initialize,
  legacyHeaders,
  modernHeaders,
  modernMeta,
  openRawSession,
  openSse,
  send,
} from './support/raw-http.js';
import { type HttpFixture, startHttpFixture } from './support/servers.js';

/**
 * The Streamable HTTP binding at the HTTP level, on a real node:http server on 127.0.0.1:
 * sessions, resumption, DNS-rebinding refusal, the body limit, and the 2026-07-28 header
 * checks, cancellation and subscriptions.
 */
let fixture: HttpFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const openSession = openRawSession;

/** A GET that resumes a 2025-11-25 session's stream after `lastEventId`. */
function resumeFrom(url: URL, sessionId: string, lastEventId: string) {
  return openSse(url, 'GET', {
    accept: 'text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
    'last-event-id': lastEventId,
  });
}

describe('DNS-rebinding protection', () => {
  it('refuses a foreign Host or Origin with 403 and serves loopback ones', async () => {
    fixture = await startHttpFixture();
    const evilHost = await send(
      fixture.url,
      'POST',
      { ...legacyHeaders, host: 'evil.example.com' },
      initialize(),
    );
    expect(evilHost.status).toBe(403);
    expect(evilHost.json().error.message).toMatch(/Host "evil.example.com" is not allowed/);
    const evilOrigin = await send(
      fixture.url,
      'POST',
      { ...legacyHeaders, origin: 'http://evil.example.com' },
      initialize(),
    );
    expect(evilOrigin.status).toBe(403);
    const local = await send(
      fixture.url,
      'POST',
      {
        ...legacyHeaders,
        host: `localhost:${fixture.url.port}`,
        origin: `http://localhost:${fixture.url.port}`,
      },
      initialize(),
    );
    expect(local.status).toBe(200);
  });

  it('serves a host named in allowedHosts', async () => {
    fixture = await startHttpFixture({ allowedHosts: ['mcp.internal'] });
    const named = await send(
      fixture.url,
      'POST',
      { ...legacyHeaders, host: 'mcp.internal:8080' },
      initialize(),
    );
    expect(named.status).toBe(200);
    const loopback = await send(fixture.url, 'POST', legacyHeaders, initialize());
    expect(loopback.status).toBe(403);
  });
});

describe('request body limit', () => {
  it('answers 413 to a body over maxBodyBytes and goes on serving', async () => {
    fixture = await startHttpFixture({ maxBodyBytes: 1024 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x'.repeat(4096), version: '1' },
      },
    });
    const refused = await send(fixture.url, 'POST', legacyHeaders, big);
    expect(refused.status).toBe(413);
    expect(refused.json().error.message).toMatch(/exceeds 1024 bytes/);
    expect((await send(fixture.url, 'POST', legacyHeaders, initialize())).status).toBe(200);
  });
});

describe('2025 sessions', () => {
  it('issues a visible-ASCII session id; DELETE ends it; the id then gets 404 with -32001', async () => {
    fixture = await startHttpFixture();
    const id = await openSession(fixture.url);
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    const headers = {
      ...legacyHeaders,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const listed = await send(fixture.url, 'POST', headers, list);
    expect(listed.status).toBe(200);
    expect(listed.json().result.tools.length).toBeGreaterThan(0);
    expect((await send(fixture.url, 'DELETE', headers)).status).toBe(200);
    const gone = await send(fixture.url, 'POST', headers, list);
    expect(gone.status).toBe(404);
    expect(gone.json().error.code).toBe(-32001);
    const unknown = await send(
      fixture.url,
      'POST',
      { ...headers, 'mcp-session-id': 'no-such-session' },
      list,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe(-32001);
  });

  it('does not keep a session whose initialize failed', async () => {
    const closed: string[] = [];
    fixture = await startHttpFixture({ onsessionclose: (id) => closed.push(id) });
    const bad = await send(
      fixture.url,
      'POST',
      legacyHeaders,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } }),
    );
    expect(bad.json().error.code).toBe(-32602);
    const id = bad.headers['mcp-session-id'] as string;
    expect(closed).toEqual([id]);
    const later = await send(
      fixture.url,
      'POST',
      { ...legacyHeaders, 'mcp-session-id': id },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(later.status).toBe(404);
  });

  it('closes a session left idle for sessionIdleTimeoutMs', async () => {
    let expired!: (id: string) => void;
    const closed = new Promise<string>((resolve) => {
      expired = resolve;
    });
    fixture = await startHttpFixture({
      sessionIdleTimeoutMs: 20,
      onsessionclose: (id) => expired(id),
    });
    const opened = await send(fixture.url, 'POST', legacyHeaders, initialize());
    const id = opened.headers['mcp-session-id'] as string;
    expect(await closed).toBe(id);
    const later = await send(
      fixture.url,
      'POST',
      { ...legacyHeaders, 'mcp-session-id': id },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect([later.status, later.json().error.code]).toEqual([404, -32001]);
  });

  it('refuses a second initialize and a request id that is still in progress', async () => {
    fixture = await startHttpFixture();
    const id = await openSession(fixture.url);
    const headers = {
      ...legacyHeaders,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    };
    const again = await send(fixture.url, 'POST', headers, initialize());
    expect(again.json().error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/already initialized/),
    });
    const waiting = await openSse(
      fixture.url,
      'POST',
      headers,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: {
          name: 'test_wait_for_cancel',
          arguments: { key: 'dup' },
          _meta: { progressToken: 1 },
        },
      }),
    );
    const priming = await waiting.next();
    expect(priming?.data).toBe('');
    expect(JSON.parse((await waiting.next())!.data).method).toBe('notifications/progress');
    const duplicate = await send(
      fixture.url,
      'POST',
      headers,
      JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/list' }),
    );
    expect([duplicate.status, duplicate.json().error.code]).toEqual([409, -32600]);
    waiting.destroy();
  });

  it('refuses requests without a session, and GET without one with 405', async () => {
    fixture = await startHttpFixture();
    const noSession = await send(
      fixture.url,
      'POST',
      legacyHeaders,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(noSession.status).toBe(400);
    expect((await send(fixture.url, 'GET', { accept: 'text/event-stream' })).status).toBe(405);
  });

  it('resumes a stream the server closed mid-call from Last-Event-ID (SEP-1699)', async () => {
    fixture = await startHttpFixture({ retryMs: 250 });
    const id = await openSession(fixture.url);
    const headers = {
      ...legacyHeaders,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    };
    const call = await openSse(
      fixture.url,
      'POST',
      headers,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'test_reconnection', arguments: {} },
      }),
    );
    expect(call.headers['content-type']).toBe('text/event-stream');
    const priming = await call.next();
    expect(priming).toMatchObject({ data: '', retry: '250' });
    expect(priming?.id).toMatch(/^\d+_\d+$/);
    // The server ended the stream before the result.
    expect(await call.next()).toBeUndefined();
    const resumed = await resumeFrom(fixture.url, id, priming!.id!);
    expect(resumed.status).toBe(200);
    const result = await resumed.next();
    expect(JSON.parse(result!.data)).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] },
    });
    expect(await resumed.next()).toBeUndefined();
  });

  it('keeps only maxBufferedEvents per session: an evicted stream cannot be resumed', async () => {
    fixture = await startHttpFixture({ maxBufferedEvents: 1 });
    const id = await openSession(fixture.url);
    const headers = {
      ...legacyHeaders,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    };
    const call = await openSse(
      fixture.url,
      'POST',
      headers,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'test_reconnection', arguments: {} },
      }),
    );
    const priming = await call.next();
    expect(await call.next()).toBeUndefined();
    // Resumed once, the stream gives its result and ends: the result is now the buffer's one
    // event, and the stream is no longer live (no timing assumption about when it comes).
    const first = await resumeFrom(fixture.url, id, priming!.id!);
    expect(first.status).toBe(200);
    expect(JSON.parse((await first.next())!.data)).toMatchObject({ id: 8 });
    expect(await first.next()).toBeUndefined();
    // Two more streamed answers push the reconnection result out of the one-event buffer.
    for (const n of [9, 10]) {
      const progress = await openSse(
        fixture.url,
        'POST',
        headers,
        JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: n } },
        }),
      );
      while (await progress.next()) {}
    }
    const resumed = await send(fixture.url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': id,
      'last-event-id': priming!.id!,
    });
    expect(resumed.status).toBe(404);
    expect(resumed.json().error.message).toMatch(/Cannot resume/);
  });
});

describe('2026-07-28 stateless binding', () => {
  it('checks headers against the body: -32020, -32022 and -32601 with 400/400/404', async () => {
    fixture = await startHttpFixture();
    const list = (extra: Record<string, string>, meta = modernMeta) =>
      send(
        fixture!.url,
        'POST',
        { ...modernHeaders('tools/list'), ...extra },
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } }),
      );
    const ok = await list({});
    expect(ok.status).toBe(200);
    expect(ok.json().result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'private',
      ttlMs: 0,
    });
    const mismatch = await list({ 'mcp-method': 'prompts/list' });
    expect([mismatch.status, mismatch.json().error.code, mismatch.json().id]).toEqual([
      400, -32020, 3,
    ]);
    const unsupported = await list(
      { 'mcp-protocol-version': '2099-01-01' },
      { ...modernMeta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.json().error).toMatchObject({
      code: -32022,
      data: {
        requested: '2099-01-01',
        supported: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      },
    });
    const ping = await send(
      fixture.url,
      'POST',
      modernHeaders('ping'),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: modernMeta } }),
    );
    expect([ping.status, ping.json().error.code]).toEqual([404, -32601]);
  });

  it('refuses subscriptions/listen from a client that does not take an event stream', async () => {
    fixture = await startHttpFixture();
    const res = await send(
      fixture.url,
      'POST',
      { ...modernHeaders('subscriptions/listen'), accept: 'application/json' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { _meta: modernMeta, notifications: { toolsListChanged: true } },
      }),
    );
    expect([res.status, res.json().error.code]).toEqual([406, -32600]);
  });

  it('treats a closed response stream as cancellation of its request', async () => {
    fixture = await startHttpFixture();
    const call = (id: number, name: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: { key: 'http' }, _meta: { ...modernMeta, progressToken: id } },
      });
    const waiting = await openSse(
      fixture.url,
      'POST',
      modernHeaders('tools/call', 'test_wait_for_cancel'),
      call(5, 'test_wait_for_cancel'),
    );
    expect(JSON.parse((await waiting.next())!.data).method).toBe('notifications/progress');
    waiting.destroy();
    const observed = await send(
      fixture.url,
      'POST',
      modernHeaders('tools/call', 'test_await_cancellation'),
      call(6, 'test_await_cancellation'),
    );
    expect(observed.json().result.content[0].text).toMatch(
      /^cancelled: .*closed the HTTP response stream/,
    );
  });

  it('acknowledges subscriptions/listen first, tags notifications, and ends it gracefully', async () => {
    fixture = await startHttpFixture();
    const listen = await openSse(
      fixture.url,
      'POST',
      modernHeaders('subscriptions/listen'),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub-1',
        method: 'subscriptions/listen',
        params: {
          _meta: modernMeta,
          notifications: { toolsListChanged: true, promptsListChanged: false },
        },
      }),
    );
    const ack = JSON.parse((await listen.next())!.data);
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      },
    });
    await send(
      fixture.url,
      'POST',
      modernHeaders('tools/call', 'test_trigger_prompt_change'),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'test_trigger_prompt_change', _meta: modernMeta },
      }),
    );
    await send(
      fixture.url,
      'POST',
      modernHeaders('tools/call', 'test_trigger_tool_change'),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'tools/call',
        params: { name: 'test_trigger_tool_change', _meta: modernMeta },
      }),
    );
    // The prompt change was not asked for: the next event is the tool change.
    expect(JSON.parse((await listen.next())!.data)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    });
    await fixture.server.close();
    expect(JSON.parse((await listen.next())!.data)).toEqual({
      jsonrpc: '2.0',
      id: 'sub-1',
      result: {
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      },
    });
  });
});
