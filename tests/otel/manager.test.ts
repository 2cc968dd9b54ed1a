import { McpManager } from '@mcpkit/manager';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { fault, nextEvent } from '../manager/helpers.js';
import { startSdk } from './sdk.js';

/**
 * @mcpkit/manager with the real SDK: a `connect {server}` span per connection attempt with
 * its outcome, a span event per state change, the servers-by-state gauge, and the clients
 * the manager creates traced through its `instrumentation` option.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('OpenTelemetry for McpManager', () => {
  it('a span per connection attempt (server, attempt, outcome), state events, the servers-by-state gauge', async () => {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const manager = new McpManager({
      servers: [fault('fine', 'ok'), fault('dead', 'crash-start')],
      instrumentation: createMcpInstrumentation(),
    });
    cleanups.push(() => manager.close());
    // No instrumentManager call: the manager hands itself to the hooks (observeManager).
    await manager.connectAll();
    await manager.callTool('fine', 'echo', { text: 'x' });

    const attempts = sdk.spans().filter((s) => s.name === 'connect fine');
    expect(attempts).toHaveLength(1);
    const fine = attempts[0]!;
    expect(fine.kind).toBe(SpanKind.INTERNAL);
    expect(fine.attributes).toMatchObject({
      'mcpkit.server.name': 'fine',
      'mcpkit.connection.attempt': 1,
      'mcpkit.connection.state': 'connected',
      'network.transport': 'pipe',
    });
    expect(fine.events.map((e) => e.attributes?.['mcpkit.connection.state'])).toContain(
      'connected',
    );
    const dead = sdk.spans().find((s) => s.name === 'connect dead')!;
    expect(dead.attributes['mcpkit.connection.state']).toBe('failed');
    expect(dead.attributes['error.type']).toBe('MCPKIT_CONNECT_FAILED');
    expect(dead.status.code).toBe(SpanStatusCode.ERROR);

    // The manager's client is traced: the call is a CLIENT span named after the tool.
    const call = sdk.spans().find((s) => s.name === 'tools/call echo')!;
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes['mcpkit.server.name']).toBe('fine');
    expect(call.attributes['network.transport']).toBe('pipe');

    const gauge = await sdk.metric('mcpkit.manager.servers');
    const byState = Object.fromEntries(
      gauge!.dataPoints.map((p) => [p.attributes['mcpkit.connection.state'], p.value]),
    );
    expect(byState).toMatchObject({ connected: 1, failed: 1, pending: 0 });
    expect(gauge!.dataPoints).toHaveLength(5);
  });

  it('a server that crashes: the reconnect attempt is a span of its own (attempt 2) with a reconnect event, and it ends connected', async () => {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const manager = new McpManager({
      servers: [fault('crashy', 'ok')],
      instrumentation: createMcpInstrumentation(),
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    cleanups.push(() => manager.close());
    await manager.connectAll();
    const back = nextEvent<{ name: string; state: { state: string } }>(
      (l) => manager.on('statechange', l),
      (e) => e.name === 'crashy' && e.state.state === 'connected',
    );
    await expect(manager.callTool('crashy', 'crash', {})).rejects.toThrow();
    await back;

    const attempts = sdk
      .spans()
      .filter((s) => s.name === 'connect crashy')
      .sort(
        (a, b) =>
          Number(a.attributes['mcpkit.connection.attempt']) -
          Number(b.attributes['mcpkit.connection.attempt']),
      );
    expect(
      attempts.map((s) => [
        s.attributes['mcpkit.connection.attempt'],
        s.attributes['mcpkit.connection.state'],
      ]),
    ).toEqual([
      [1, 'connected'],
      [2, 'connected'],
    ]);
    const reconnect = attempts[1]!.events.find((e) => e.name === 'mcpkit.manager.reconnect')!;
    expect(reconnect.attributes).toMatchObject({
      'mcpkit.server.name': 'crashy',
      'mcpkit.connection.reconnect_attempt': 1,
    });
    expect(
      Number(reconnect.attributes!['mcpkit.connection.reconnect_delay_ms']),
    ).toBeGreaterThanOrEqual(0);
    expect(attempts[1]!.attributes['network.transport']).toBe('pipe');
    expect(attempts[1]!.events.map((e) => e.attributes?.['mcpkit.connection.state'])).toContain(
      'pending',
    );
  });
});
