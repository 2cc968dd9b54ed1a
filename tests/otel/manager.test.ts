import { McpManager } from '@mcpkit/manager';
import { createMcpInstrumentation, instrumentManager } from '@mcpkit/otel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { fault } from '../manager/helpers.js';
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
    const stop = instrumentManager(manager, { transportOf: () => 'pipe' });
    cleanups.push(async () => stop());
    await manager.connectAll();
    await manager.callTool('fine', 'echo', { text: 'x' });

    const fine = sdk.spans().find((s) => s.name === 'connect fine')!;
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
  });
});
