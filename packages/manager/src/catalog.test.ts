import { expect, test } from 'vitest';
import { Catalog } from './catalog.js';
import { Emitter } from './emitter.js';
import { managerDefaults } from './limits.js';
import type { ManagerEvents } from './state.js';

/** A fake clock that records timers and runs them only when told. */
function fakeClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void; delay: number }>();
  let next = 1;
  return {
    now: () => now,
    random: () => 0.5,
    setTimeout: (run: () => void, delay: number) => {
      timers.set(next, { at: now + delay, run, delay });
      return next++;
    },
    clearTimeout: (id: unknown) => {
      timers.delete(id as number);
    },
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at <= now) {
          timers.delete(id);
          t.run();
        }
      }
    },
    pending: () => [...timers.values()],
  };
}

test('list_changed is debounced 300 ms, but a stream of notifications is flushed within 2 s of the first', () => {
  const clock = fakeClock();
  const catalog = new Catalog({
    limits: { ...managerDefaults },
    clock,
    events: new Emitter<ManagerEvents>(),
    callTool: async () => {
      throw new Error('not called');
    },
    getPrompt: () => async () => {
      throw new Error('not called');
    },
  });
  let refetches = 0;
  const client = () => {
    refetches++;
    return undefined; // not connected: nothing is fetched, but the flush is counted
  };
  catalog.changed('s', 'tools', client);
  expect(clock.pending().map((t) => t.delay)).toEqual([300]);
  // A notification every 250 ms keeps postponing the refetch...
  for (let i = 0; i < 7; i++) {
    clock.advance(250);
    catalog.changed('s', 'tools', client);
  }
  expect(refetches).toBe(0);
  // ...until 2 s after the first one: at t = 1750 only 250 ms are left.
  expect(clock.pending().map((t) => t.delay)).toEqual([250]);
  clock.advance(250);
  expect(refetches).toBe(1);
  expect(clock.now()).toBe(2_000);
});
