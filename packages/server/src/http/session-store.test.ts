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

  it('expired entries go without a read: an ended stream, a session and a heartbeat left to expire leave the store on their own', async () => {
    const store = createMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    await store.saveSession('kept', record, 60_000);
    await store.appendEvent('kept', { stream: 5, seq: 1, data: '{}', final: false }, 60_000, 8);
    await store.appendEvent('kept', { stream: 6, seq: 2, data: '{}', final: true }, 60_000, 8, 20);
    await store.saveSession('idle', record, 20);
    await store.heartbeat('gone', 20);
    expect(store.size).toBe(5);
    // Nothing is read meanwhile: the ended stream's log, the idle session and the heartbeat go.
    await expect.poll(() => store.size, { timeout: 4_000, interval: 50 }).toBe(2);
    expect(await store.loadSession('kept')).toEqual(record);
    expect(await store.eventsAfter('kept', 5, 0)).toHaveLength(1);
    expect(await store.eventsAfter('kept', 6, 0)).toEqual([]);
    expect(await store.loadSession('idle')).toBeUndefined();
    await store.close();
  });

  it('an entry extended after it was scheduled is not dropped at its old time', async () => {
    const store = createMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    await store.saveSession('touched', record, 20);
    await store.touchSession('touched', 60_000);
    await store.saveSession('other', record, 20);
    // The other one's expiry is swept; the touched one stays.
    await expect.poll(() => store.size, { timeout: 4_000, interval: 50 }).toBe(1);
    expect(await store.loadSession('touched')).toEqual(record);
    await store.close();
  });

  it("touching or deleting a session reaches its own entries only, not another's whose id starts the same", async () => {
    const store = createMemorySessionStore();
    const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    for (const id of ['s1', 's10']) {
      await store.saveSession(id, record, 40);
      await store.openStream(id, 1, { replica: 'r', requestId: 1 }, 40);
      await store.appendEvent(id, { stream: 1, seq: 1, data: '{}', final: false }, 40, 8);
      await store.appendStandalone?.(id, '{}', 40, 8);
    }
    await store.heartbeat('r', 60_000);
    // Per session: its record, a stream's owner and log, the standalone counter and log.
    expect(store.size).toBe(11);
    // s1 is kept; s10, not touched, expires on its own.
    await store.touchSession('s1', 60_000);
    await expect.poll(() => store.size, { timeout: 4_000, interval: 20 }).toBe(6);
    expect(await store.loadSession('s1')).toEqual(record);
    expect(await store.streamOwner('s1', 1)).toEqual({ replica: 'r', requestId: 1 });
    expect(await store.eventsAfter('s1', 0, 0)).toHaveLength(1);
    expect(await store.loadSession('s10')).toBeUndefined();
    // A new s10: deleting s1 leaves it and the heartbeat.
    await store.saveSession('s10', record, 60_000);
    await store.deleteSession('s1');
    expect(store.size).toBe(2);
    expect(await store.loadSession('s10')).toEqual(record);
    expect(await store.isAlive('r')).toBe(true);
    // A session saved again after its deletion is kept and touched as a new one.
    await store.saveSession('s1', record, 40);
    await store.touchSession('s1', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.loadSession('s1')).toEqual(record);
    await store.close();
  });
});
