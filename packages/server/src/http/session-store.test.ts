import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from './session-store.js';

describe('createMemorySessionStore', () => {
  it("a stream's last event with endTtlMs: its owner and log go then, however often the session is touched", async () => {
    const store = createMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    await store.saveSession('s1', record, 60_000);
    await store.openStream('s1', 5, { replica: 'r', requestId: 1 }, 60_000);
    await store.openStream('s1', 6, { replica: 'r', requestId: 2 }, 60_000);
    await store.appendEvent('s1', { stream: 5, seq: 1, data: '{}', final: true }, 60_000, 8, 30);
    await store.appendEvent('s1', { stream: 6, seq: 2, data: '{}', final: false }, 60_000, 8, 30);
    // Touched meanwhile: the session and the open stream are kept longer, the ended one is not.
    await expect
      .poll(async () => {
        await store.touchSession('s1', 60_000);
        return store.streamOwner('s1', 5);
      })
      .toBeUndefined();
    expect(await store.eventsAfter('s1', 5, 0)).toEqual([]);
    expect(await store.streamOwner('s1', 6)).toEqual({ replica: 'r', requestId: 2 });
    expect(await store.eventsAfter('s1', 6, 0)).toHaveLength(1);
    expect(await store.loadSession('s1')).toEqual(record);
  });
});
