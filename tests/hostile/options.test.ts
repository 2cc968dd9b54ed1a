import { JsonRpcPeer, NdjsonFramer } from '@mcpkit/jsonrpc';
import { HttpFallbackTransport } from '@mcpkit/manager/http-fallback';
import { SseTransport } from '@mcpkit/transport-sse';
import { StdioTransport } from '@mcpkit/transport-stdio';
import {
  StreamableHttpTransport,
  streamRetryDefaults,
  streamRetryDelay,
} from '@mcpkit/transport-streamable-http';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
import { describe, expect, it } from 'vitest';

/**
 * Issue #10 finding 13: every numeric option is checked where it is given. Out of range
 * (NaN, negative, fractional counts, timers past 2^31 − 1 ms) is a TypeError naming the
 * option and the allowed range — never a silent fallback such as `maxMessageBytes: NaN`
 * turning the size limit off, or a timer that overflows and fires at once.
 */

const url = 'http://127.0.0.1:9/mcp';
const BAD_BYTES = [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY, '1024'];
const BAD_TIMERS = [Number.NaN, -1, 99_999_999_999, Number.POSITIVE_INFINITY];

type Build = (options: Record<string, unknown>) => unknown;

const families: Array<[name: string, build: Build, timers: string[], zeroTimers: string[]]> = [
  [
    'StreamableHttpTransport',
    (o) => new StreamableHttpTransport({ url, ...o }),
    [],
    ['reconnect.initialDelayMs', 'reconnect.maxDelayMs'],
  ],
  [
    'SseTransport',
    (o) => new SseTransport({ url, ...o }),
    ['endpointTimeoutMs'],
    ['reconnect.initialDelayMs', 'reconnect.maxDelayMs'],
  ],
  [
    'WebSocketTransport',
    (o) => new WebSocketTransport({ url: 'ws://127.0.0.1:9/mcp', ...o }),
    ['pongTimeoutMs', 'connectTimeoutMs'],
    ['pingIntervalMs'],
  ],
  [
    'StdioTransport',
    (o) => new StdioTransport({ command: 'true', ...o }),
    [],
    ['closeTimeline.stdinGraceMs', 'closeTimeline.sigintGraceMs', 'closeTimeline.sigtermGraceMs'],
  ],
];

/** `{ 'a.b': v }` → `{ a: { b: v } }`. */
function option(path: string, value: unknown): Record<string, unknown> {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return tail === undefined ? { [head]: value } : { [head]: { [tail]: value } };
}

function refuses(name: string, build: Build, path: string, value: unknown) {
  expect(() => build(option(path, value)), `${name} ${path} = ${String(value)}`).toThrow(TypeError);
  expect(() => build(option(path, value))).toThrow(
    new RegExp(`^${name}: "${path.replace('.', '\\.')}" must be .* from \\d+ to \\d+`),
  );
}

describe('numeric options of the transports', () => {
  describe.each(families)('%s', (name, build, timers, zeroTimers) => {
    it.each(BAD_BYTES)('refuses maxMessageBytes = %s (NaN no longer disables the limit)', (v) => {
      refuses(name, build, 'maxMessageBytes', v);
    });

    it('accepts a maxMessageBytes of 1 and the defaults', () => {
      expect(() => build({ maxMessageBytes: 1 })).not.toThrow();
      expect(() => build({})).not.toThrow();
    });

    it.each(timers.flatMap((t) => [...BAD_TIMERS, 0].map((v) => [t, v] as const)))(
      'refuses %s = %s',
      (path, v) => refuses(name, build, path, v),
    );

    it.each(zeroTimers.flatMap((t) => BAD_TIMERS.map((v) => [t, v] as const)))(
      'refuses %s = %s (0 allowed, documented)',
      (path, v) => refuses(name, build, path, v),
    );

    it.each(zeroTimers)('accepts %s = 0', (path) => {
      expect(() => build(option(path, 0))).not.toThrow();
    });
  });

  it.each([
    ['reconnect.maxAttempts', -1],
    ['reconnect.maxAttempts', 1.5],
    ['reconnect.maxAttempts', Number.NaN],
    ['reconnect.growthFactor', Number.NaN],
    ['reconnect.growthFactor', 0.5],
    ['reconnect.growthFactor', Number.POSITIVE_INFINITY],
  ])('both HTTP transports refuse %s = %s', (path, v) => {
    refuses('StreamableHttpTransport', (o) => new StreamableHttpTransport({ url, ...o }), path, v);
    refuses('SseTransport', (o) => new SseTransport({ url, ...o }), path, v);
  });

  it('StdioTransport refuses a negative or fractional stderrBufferChars, accepts 0', () => {
    const build: Build = (o) => new StdioTransport({ command: 'true', ...o });
    refuses('StdioTransport', build, 'stderrBufferChars', -1);
    refuses('StdioTransport', build, 'stderrBufferChars', 0.5);
    expect(() => build({ stderrBufferChars: 0 })).not.toThrow();
  });

  it('HttpFallbackTransport checks the legacy options at construction, not at the first message', () => {
    expect(
      () => new HttpFallbackTransport({ url, sse: { endpointTimeoutMs: Number.NaN } }),
    ).toThrow(/^SseTransport: "endpointTimeoutMs" must be/);
    expect(() => new HttpFallbackTransport({ url, maxMessageBytes: Number.NaN })).toThrow(
      /^StreamableHttpTransport: "maxMessageBytes" must be/,
    );
  });

  it('the core: JsonRpcPeer and NdjsonFramer', () => {
    const idle = {
      onmessage: undefined,
      onerror: undefined,
      onclose: undefined,
      start: async () => {},
      send: async () => {},
      close: async () => {},
    };
    expect(() => new JsonRpcPeer(idle, { defaultTimeoutMs: 99_999_999_999 })).toThrow(
      /^JsonRpcPeer: "defaultTimeoutMs" must be/,
    );
    expect(
      () => new NdjsonFramer({ maxMessageBytes: Number.NaN, onvalue() {}, onerror() {} }),
    ).toThrow(/^NdjsonFramer: "maxMessageBytes" must be/);
  });

  it("a server's SSE retry of 99999999999 ms waits no longer than maxDelayMs", () => {
    expect(streamRetryDelay(streamRetryDefaults, 1, 99_999_999_999)).toBe(
      streamRetryDefaults.maxDelayMs,
    );
    expect(streamRetryDelay(streamRetryDefaults, 1, 20)).toBe(20);
  });
});
