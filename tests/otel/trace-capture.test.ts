import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureTrace, renderTrace, traceShape } from './trace-capture.mjs';

/**
 * The example trace of packages/otel/README.md is the output of tests/otel/trace-capture.mjs:
 * the built `mcpkit call` → `mcpkit serve --http` → a stdio backend on @mcpkit/server, all
 * exporting OTLP/HTTP to the receiver. A fresh run must give the same span names, kinds,
 * services and tree (ids, durations and ports differ). The gateway's batch processor is set
 * to wait 10 minutes, so its spans arrive only because the signal that stops it flushes them.
 */
const readme = new URL('../../packages/otel/README.md', import.meta.url);

function documentedTrace(): string {
  const page = readFileSync(readme, 'utf8');
  const m = /<!-- trace-capture:begin -->\n```text\n([\s\S]*?)```\n<!-- trace-capture:end -->/.exec(
    page,
  );
  if (!m) throw new Error('packages/otel/README.md has no trace-capture block');
  return m[1]!;
}

describe('the example trace of the @mcpkit/otel docs page', () => {
  it('has the span names, kinds, services and tree of a real run; SIGTERM of serve flushes its spans and metrics', async () => {
    const run = await captureTrace({ signal: 'SIGTERM' });
    const shape = traceShape(renderTrace(run.spans));
    expect(shape.map((s) => `${'  '.repeat(s.depth)}${s.name} ${s.kind} [${s.service}]`)).toEqual([
      'tools/call local__echo CLIENT [host]',
      '  tools/call local__echo SERVER [gateway]',
      '    tools/call echo CLIENT [gateway]',
      '      tools/call echo SERVER [backend]',
    ]);
    const doc = documentedTrace();
    expect(traceShape(doc)).toEqual(shape);
    // One trace id on the page, as in the run (all spans share the host span's trace).
    expect(doc.match(/^trace [0-9a-f]{32}$/gm)).toHaveLength(1);
    expect(new Set(run.spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));
    // Parent links: from the host's span down, each span has exactly one child, by id.
    const chain = [run.spans.find((s) => s.parentSpanId === '')!];
    for (let i = 1; i < run.spans.length; i++) {
      const children = run.spans.filter((s) => s.parentSpanId === chain[i - 1]!.spanId);
      expect(children).toHaveLength(1);
      chain.push(children[0]!);
    }
    expect(chain.map((s) => s.service)).toEqual(['host', 'gateway', 'gateway', 'backend']);
    const gatewayUrl = new URL(run.gatewayUrl as string);
    expect(chain[0]!.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': Number(gatewayUrl.port),
      'mcpkit.server.name': 'gw',
      // Through the manager's HTTP fallback wrapper, which says its transport's version.
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
    });
    // The gateway's SERVER span names the host's socket (over OTLP protobuf, decoded).
    expect(chain[1]!.attributes).toMatchObject({
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
    });
    expect(typeof chain[1]!.attributes['client.port']).toBe('number');
    expect(chain[3]!.attributes['network.transport']).toBe('pipe');
    expect(chain[3]!.attributes['network.protocol.name']).toBeUndefined();
    // Nothing of the gateway had left before the signal; all of it after.
    expect(run.gatewaySpansBeforeSignal).toBe(0);
    expect(run.gatewayExit).toEqual({ code: 143, signal: null });
    expect(run.metricServices).toContain('gateway');
  }, 90_000);

  it('Ctrl-C (SIGINT) of serve flushes its spans before it exits 130', async () => {
    const run = await captureTrace({ signal: 'SIGINT' });
    expect(run.gatewaySpansBeforeSignal).toBe(0);
    expect(run.gatewayExit).toEqual({ code: 130, signal: null });
    expect(
      run.spans
        .filter((s) => s.service === 'gateway')
        .map((s) => s.name)
        .sort(),
    ).toEqual(['tools/call echo', 'tools/call local__echo']);
  }, 90_000);
});
