import { describe, expect, it } from 'vitest';
import { JsonRpcPeer } from './json-rpc-peer.js';
import { NdjsonFramer } from './ndjson-framer.js';
import { checkCount, checkFinite, checkTimerMs, MAX_TIMER_MS } from './option-checks.js';
import type { Transport } from './transport.js';

const idle: Transport = {
  onmessage: undefined,
  onerror: undefined,
  onclose: undefined,
  start: async () => {},
  send: async () => {},
  close: async () => {},
};

describe('checkTimerMs', () => {
  it.each([
    [1, {}],
    [1.5, {}],
    [MAX_TIMER_MS, {}],
    [0, { zero: true }],
    [Number.POSITIVE_INFINITY, { infinity: true }],
    [undefined, {}],
  ])('accepts %s with %o', (value, rules) => {
    expect(checkTimerMs('Owner', 'delayMs', value, rules)).toBe(value);
  });

  it.each([
    [0, {}],
    [-1, { zero: true }],
    [Number.NaN, { zero: true, infinity: true }],
    [Number.POSITIVE_INFINITY, { zero: true }],
    [Number.NEGATIVE_INFINITY, { infinity: true }],
    [MAX_TIMER_MS + 1, {}],
    [99_999_999_999, { infinity: true }],
    ['100', {}],
  ])('refuses %s with %o, naming the option and the range', (value, rules) => {
    expect(() => checkTimerMs('Owner', 'delayMs', value as number, rules)).toThrow(TypeError);
    expect(() => checkTimerMs('Owner', 'delayMs', value as number, rules)).toThrow(
      /^Owner: "delayMs" must be a number of milliseconds from [01] to 2147483647/,
    );
  });
});

describe('checkCount and checkFinite', () => {
  it.each([[0], [-3], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 53]])(
    'checkCount refuses %s',
    (value) => {
      expect(() => checkCount('Owner', 'maxPages', value)).toThrow(
        /^Owner: "maxPages" must be an integer from 1 to 9007199254740991; got /,
      );
    },
  );

  it('checkCount honours min and max', () => {
    expect(checkCount('O', 'n', 0, { min: 0 })).toBe(0);
    expect(() => checkCount('O', 'n', 11, { max: 10 })).toThrow(/from 1 to 10; got 11/);
  });

  it('checkFinite refuses NaN and values out of range', () => {
    expect(checkFinite('O', 'growthFactor', 2, 1, 100)).toBe(2);
    expect(() => checkFinite('O', 'growthFactor', Number.NaN, 1, 100)).toThrow(TypeError);
    expect(() => checkFinite('O', 'growthFactor', 0.5, 1, 100)).toThrow(/from 1 to 100; got 0.5/);
  });
});

describe('numeric options of the core', () => {
  it.each([
    ['defaultTimeoutMs', Number.NaN],
    ['defaultTimeoutMs', -1],
    ['defaultTimeoutMs', 99_999_999_999],
  ])('JsonRpcPeer refuses %s: %s', (name, value) => {
    expect(() => new JsonRpcPeer(idle, { [name]: value })).toThrow(
      new RegExp(`JsonRpcPeer: "${name}" must be`),
    );
  });

  it('JsonRpcPeer keeps 0 and Infinity as "no timeout"', () => {
    expect(new JsonRpcPeer(idle, { defaultTimeoutMs: 0 }).defaultTimeoutMs).toBe(0);
    expect(new JsonRpcPeer(idle, { defaultTimeoutMs: Infinity }).defaultTimeoutMs).toBe(Infinity);
  });

  it.each([
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ timeoutMs: -5 }, 'timeoutMs'],
    [{ maxTotalTimeoutMs: 0 }, 'maxTotalTimeoutMs'],
    [{ maxTotalTimeoutMs: Number.NaN }, 'maxTotalTimeoutMs'],
  ])('a request with %o is refused before anything is sent', async (options, name) => {
    let sent = 0;
    const peer = new JsonRpcPeer(
      {
        ...idle,
        send: async () => {
          sent++;
        },
      },
      { label: 'server "x"' },
    );
    await expect(peer.request('ping', undefined, options)).rejects.toThrow(
      new RegExp(`^server "x": "${name}" must be`),
    );
    expect(sent).toBe(0);
    expect(peer.pendingCount).toBe(0);
  });

  it('a timer of 99999999999 ms throws instead of printing TimeoutOverflowWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const peer = new JsonRpcPeer(idle);
      await expect(peer.request('ping', undefined, { timeoutMs: 99_999_999_999 })).rejects.toThrow(
        TypeError,
      );
      expect(() => new JsonRpcPeer(idle, { defaultTimeoutMs: 99_999_999_999 })).toThrow(TypeError);
      // A warning is emitted on the next tick; give it the chance to show up.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });

  it.each([[Number.NaN], [0], [-1], [1.5], [Number.POSITIVE_INFINITY]])(
    'NdjsonFramer refuses maxMessageBytes %s (NaN no longer turns the limit off)',
    (value) => {
      expect(
        () => new NdjsonFramer({ maxMessageBytes: value, onvalue: () => {}, onerror: () => {} }),
      ).toThrow(/NdjsonFramer: "maxMessageBytes" must be an integer from 1/);
    },
  );
});
