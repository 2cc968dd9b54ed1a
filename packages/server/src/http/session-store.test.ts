import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from './session-store.js';

describe('createMemorySessionStore', () => {
  it('a released stream expires after its grace period, however often the session is touched', async () => {
    const store = createMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    await store.saveSession('s1', record, 60_000);
    await store.openStream('s1', 5, { replica: 'r', requestId: 1 }, 60_000);
    await store.openStream('s1', 6, { replica: 'r', requestId: 2 }, 60_000);
    await store.appendEvent('s1', { stream: 5, seq: 1, data: '{}', final: true }, 60_000, 8);
    await store.releaseStream?.('s1', 5, 30);
    // Touched while the grace period runs: the session and the open stream are kept longer,
    // the released one is not.
    await expect
      .poll(async () => {
        await store.touchSession('s1', 60_000);
        return store.streamOwner('s1', 5);
      })
      .toBeUndefined();
    expect(await store.eventsAfter('s1', 5, 0)).toEqual([]);
    expect(await store.streamOwner('s1', 6)).toEqual({ replica: 'r', requestId: 2 });
    expect(await store.loadSession('s1')).toEqual(record);
  });
});
