import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED, InterruptedError, Shutdown, signalExitCodes } from './signals.js';

/** A process stand-in (an EventEmitter, as `process` is) and an exit that records. */
function harness(closeTimeoutMs?: number) {
  const proc = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  const shutdown = new Shutdown({
    process: proc as unknown as NodeJS.Process,
    exit: (code) => exits.push(code),
    log: (line) => lines.push(line),
    ...(closeTimeoutMs ? { closeTimeoutMs } : {}),
  });
  const uninstall = shutdown.install();
  const exited = () =>
    new Promise<number>((resolve) => {
      const check = () => (exits.length > 0 ? resolve(exits[0]!) : setImmediate(check));
      check();
    });
  return { proc, exits, lines, shutdown, uninstall, exited };
}

/** A connection whose close the test settles by hand. */
function connection() {
  const log: string[] = [];
  let finish = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    log,
    finish: () => finish(),
    resource: {
      close: () => {
        log.push('close');
        return closed;
      },
      kill: () => log.push('kill'),
    },
  };
}

describe('Shutdown', () => {
  it.each(Object.entries(signalExitCodes))(
    '%s aborts, closes every connection, then exits %d',
    async (signal, code) => {
      const h = harness();
      const a = connection();
      const b = connection();
      h.shutdown.track(a.resource);
      h.shutdown.track(b.resource);
      h.proc.emit(signal, signal);
      expect(h.shutdown.signal.aborted).toBe(true);
      expect(h.shutdown.signal.reason).toBeInstanceOf(InterruptedError);
      expect(h.shutdown.signal.reason.code).toBe(INTERRUPTED);
      expect(a.log).toEqual(['close']);
      expect(h.exits).toEqual([]);
      a.finish();
      b.finish();
      expect(await h.exited()).toBe(code);
      expect(h.lines[0]).toContain(`${signal}: closing 2 connections`);
    },
  );

  it('a second signal while closing kills every connection at once and exits', async () => {
    const h = harness();
    const a = connection();
    h.shutdown.track(a.resource);
    h.proc.emit('SIGTERM', 'SIGTERM');
    h.proc.emit('SIGINT', 'SIGINT');
    expect(a.log).toEqual(['close', 'kill']);
    expect(h.exits).toEqual([130]);
    a.finish();
    await new Promise((r) => setImmediate(r));
    expect(h.exits).toEqual([130]);
  });

  it('a close that never ends is cut off at closeTimeoutMs: killed, then exit', async () => {
    const h = harness(1);
    const a = connection();
    h.shutdown.track(a.resource);
    h.proc.emit('SIGHUP', 'SIGHUP');
    expect(await h.exited()).toBe(129);
    expect(a.log).toEqual(['close', 'kill']);
    expect(h.lines.at(-1)).toContain('did not close within');
  });

  it('nothing new starts after the signal: track() closes it and throws the interruption', () => {
    const h = harness();
    h.proc.emit('SIGINT', 'SIGINT');
    const late = connection();
    expect(() => h.shutdown.track(late.resource)).toThrow(InterruptedError);
    expect(late.log).toEqual(['kill', 'close']);
  });

  it('an untracked connection is left alone; uninstall stops listening', async () => {
    const h = harness();
    const a = connection();
    const untrack = h.shutdown.track(a.resource);
    untrack();
    expect(h.shutdown.size).toBe(0);
    h.uninstall();
    expect(h.proc.listenerCount('SIGINT')).toBe(0);
  });

  it('rejects a close deadline a timer cannot hold', () => {
    expect(() => new Shutdown({ closeTimeoutMs: 2 ** 31 })).toThrow(TypeError);
    expect(() => new Shutdown({ closeTimeoutMs: Number.NaN })).toThrow(TypeError);
  });
});

describe('SIGHUP with a hangup handler (serve reopening its audit file)', () => {
  it('runs the handler instead of shutting down while it is set; shuts down once unset', async () => {
    const { proc, exits, shutdown, exited } = harness();
    let reopened = 0;
    const unset = shutdown.onHangup(() => {
      reopened++;
    });
    proc.emit('SIGHUP', 'SIGHUP');
    proc.emit('SIGHUP', 'SIGHUP');
    expect(reopened).toBe(2);
    expect(shutdown.signal.aborted).toBe(false);
    expect(exits).toEqual([]);
    unset();
    proc.emit('SIGHUP', 'SIGHUP');
    expect(await exited()).toBe(signalExitCodes.SIGHUP);
    expect(reopened).toBe(2);
  });
});
