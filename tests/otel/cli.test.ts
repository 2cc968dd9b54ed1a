import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { startOtlpReceiver } from './otlp-receiver.mjs';

/**
 * The built CLI and OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set, `call` exports a
 * `tools/call <tool>` span over OTLP/HTTP (flushed before the exit); without any OTEL_*
 * variable no OpenTelemetry module loads (recorded like tests/cli/fast-start.test.ts).
 */
const recorder = fileURLToPath(new URL('../cli/support/record-loads.mjs', import.meta.url));
const v1Fixture = fileURLToPath(new URL('./fixtures/sdk-v1-meta-server.mjs', import.meta.url));

let box: Sandbox | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
  box?.[Symbol.dispose]();
  box = undefined;
});

/** Runs the CLI without blocking this process (the receiver answers from here). */
function run(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { env, cwd: box!.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function config(): string {
  box ??= sandbox('mcpkit-cli-otel-');
  return box.file('servers.json', {
    mcpServers: { v1: { command: process.execPath, args: [v1Fixture] } },
  });
}

describe('mcpkit and OpenTelemetry', () => {
  it('with OTEL_EXPORTER_OTLP_ENDPOINT, call exports a "tools/call meta" CLIENT span before it exits', async () => {
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const file = config();
    const r = await run([bin, '--strict-config', '-c', file, 'call', 'v1', 'meta', '{}'], {
      ...box!.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'cli-under-test',
    });
    expect(r.code, r.stderr).toBe(0);
    // The batching exporter waits 5 s by default: the span is here because the exit flushed.
    const span = receiver.spans.find((s) => s.name === 'tools/call meta');
    expect(span).toMatchObject({
      service: 'cli-under-test',
      kind: 3,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'meta',
        'mcpkit.server.name': 'v1',
        'network.transport': 'pipe',
      },
    });
    // The backend saw the same span as its parent.
    const meta = JSON.parse(r.stdout);
    expect(meta.traceparent).toBe(`00-${span!.traceId}-${span!.spanId}-01`);
    // No OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf, the specification's default.
    expect(new Set(receiver.posts.map((p) => p.contentType))).toEqual(
      new Set(['application/x-protobuf']),
    );
  });

  /** `call` with the receiver as endpoint and `extra` variables; what the receiver got. */
  async function callWith(extra: NodeJS.ProcessEnv, log?: string) {
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const file = config();
    const r = await run(
      [
        ...(log !== undefined ? ['--import', recorder] : []),
        bin,
        '--strict-config',
        '-c',
        file,
        'call',
        'v1',
        'meta',
        '{}',
      ],
      {
        ...box!.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        ...(log !== undefined ? { MCPKIT_LOAD_LOG: log } : {}),
        ...extra,
      },
    );
    const encodings = (path: string) => [
      ...new Set(receiver.posts.filter((p) => p.path === path).map((p) => p.contentType)),
    ];
    return { r, receiver, traces: encodings('/v1/traces'), metrics: encodings('/v1/metrics') };
  }

  it.each([
    [
      'OTEL_EXPORTER_OTLP_PROTOCOL=http/json',
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      'application/json',
      'application/json',
    ],
    [
      'OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      'application/x-protobuf',
      'application/x-protobuf',
    ],
    [
      'http/json overall, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf',
      {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      },
      'application/x-protobuf',
      'application/json',
    ],
    [
      'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=http/json alone',
      { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' },
      'application/x-protobuf',
      'application/json',
    ],
  ])(
    '%s: spans and metrics leave in the encoding asked for, and the receiver decodes the span',
    async (_name, extra, traces, metrics) => {
      const got = await callWith(extra);
      expect(got.r.code, got.r.stderr).toBe(0);
      expect(got.traces).toEqual([traces]);
      expect(got.metrics).toEqual([metrics]);
      const span = got.receiver.spans.find((s) => s.name === 'tools/call meta');
      expect(span).toMatchObject({
        service: 'mcpkit',
        kind: 3,
        attributes: { 'mcp.method.name': 'tools/call', 'network.transport': 'pipe' },
      });
      expect(JSON.parse(got.r.stdout).traceparent).toBe(`00-${span!.traceId}-${span!.spanId}-01`);
    },
  );

  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'grpc'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'grpc'],
    [
      'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL',
      { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'thrift' },
      'thrift',
    ],
  ])(
    '%s asking for an encoding the CLI cannot send is refused (exit 2, the variable named), nothing runs',
    async (variable, extra, value) => {
      const got = await callWith(extra);
      expect(got.r.code).toBe(2);
      expect(got.r.stderr).toContain(`${variable}="${value}" is not supported`);
      expect(got.r.stderr).toContain('http/protobuf');
      expect(got.r.stdout).toBe('');
      expect(got.receiver.posts).toEqual([]);
    },
  );

  it('OTEL_SDK_DISABLED=true wins over the endpoint: no OpenTelemetry module loads, nothing is exported, no traceparent is sent', async () => {
    box ??= sandbox('mcpkit-cli-otel-');
    const log = path.join(box.dir, 'loads-disabled.log');
    const got = await callWith({ OTEL_SDK_DISABLED: 'true' }, log);
    expect(got.r.code, got.r.stderr).toBe(0);
    expect(JSON.parse(got.r.stdout)).toBeNull();
    expect(got.receiver.posts).toEqual([]);
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(urls.filter((u) => /@opentelemetry|\/packages\/otel\//.test(u))).toEqual([]);
  });

  it('OTEL_TRACES_EXPORTER=none: no span is exported and no traceparent sent; the metrics still are', async () => {
    const got = await callWith({ OTEL_TRACES_EXPORTER: 'none' });
    expect(got.r.code, got.r.stderr).toBe(0);
    expect(JSON.parse(got.r.stdout)).toBeNull();
    expect(got.traces).toEqual([]);
    expect(got.receiver.spans).toEqual([]);
    expect(got.metrics).toEqual(['application/x-protobuf']);
  });

  it.each([
    ['--version', () => ['--version']],
    ['list', () => ['--strict-config', '-c', config(), 'list']],
  ])(
    'start-up unchanged without OTEL_* variables: mcpkit %s loads no OpenTelemetry module and not the CLI telemetry chunk',
    async (_name, argv) => {
      const args = argv();
      box ??= sandbox('mcpkit-cli-otel-');
      const log = path.join(box.dir, 'loads.log');
      const r = await run(['--import', recorder, bin, ...args], {
        ...box.env,
        MCPKIT_LOAD_LOG: log,
      });
      expect(r.code, r.stderr).toBe(0);
      const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(urls.some((u) => u.endsWith('/bin.cjs'))).toBe(true);
      expect(
        urls.filter((u) => /@opentelemetry|\/packages\/otel\/|\/telemetry-[^/]*\.js$/.test(u)),
      ).toEqual([]);
    },
  );

  it('the same record sees the SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set (list loads the telemetry chunk then)', async () => {
    const file = config();
    const log = path.join(box!.dir, 'loads-on.log');
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const r = await run(['--import', recorder, bin, '--strict-config', '-c', file, 'list'], {
      ...box!.env,
      MCPKIT_LOAD_LOG: log,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(r.code, r.stderr).toBe(0);
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(urls.some((u) => /\/telemetry-[^/]*\.js$/.test(u))).toBe(true);
    expect(urls.some((u) => u.includes('@opentelemetry'))).toBe(true);
  });

  it('without OTEL_* variables, call loads no OpenTelemetry module and sends no traceparent', async () => {
    const file = config();
    const log = path.join(box!.dir, 'loads.log');
    const r = await run(
      ['--import', recorder, bin, '--strict-config', '-c', file, 'call', 'v1', 'meta', '{}'],
      { ...box!.env, MCPKIT_LOAD_LOG: log },
    );
    expect(r.code, r.stderr).toBe(0);
    const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(urls.some((u) => u.includes('/packages/manager/'))).toBe(true);
    expect(urls.filter((u) => /@opentelemetry|\/packages\/otel\//.test(u))).toEqual([]);
    expect(JSON.parse(r.stdout)).toBeNull();
  });
});
