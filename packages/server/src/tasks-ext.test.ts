import { RpcError } from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import { TASKS_EXTENSION, TaskStore, toolTask } from './tasks-ext.js';
import type { HandlerContext } from './types.js';

/** A 2026-07-28 request's context that declared the extension (what the store reads of it). */
function ctx(subject?: string): HandlerContext {
  return {
    era: 'modern',
    method: 'tools/call',
    clientCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    authInfo: subject
      ? { kind: 'jwt', subject, clientId: undefined, scopes: [], expiresAt: undefined }
      : undefined,
  } as unknown as HandlerContext;
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

describe('TaskStore (the tasks extension)', () => {
  it('refuses a task past maxTasks while all are running, and makes room by dropping the oldest ended one', async () => {
    const store = new TaskStore(
      { maxTasks: 2 },
      () => {},
      () => {},
    );
    const first = gate();
    const second = gate();
    const a = store.serve(
      toolTask(async () => {
        await first.opened;
        return text('a');
      }),
      ctx(),
      'a',
    ) as { taskId: string };
    store.serve(
      toolTask(async () => {
        await second.opened;
        return text('b');
      }),
      ctx(),
      'b',
    );
    let refused: unknown;
    try {
      store.serve(
        toolTask(() => text('c')),
        ctx(),
        'c',
      );
    } catch (error) {
      refused = error;
    }
    expect(RpcError.isInstance(refused) && refused.rpcCode).toBe(-32603);
    expect(store.size).toBe(2);
    first.open();
    await new Promise((r) => setImmediate(r));
    expect(store.get({ taskId: a.taskId }, ctx())).toMatchObject({ status: 'completed' });
    const c = store.serve(
      toolTask(() => text('c')),
      ctx(),
      'c',
    ) as { taskId: string };
    expect(store.size).toBe(2);
    // The ended task made room: it is gone, the new one is there.
    expect(() => store.get({ taskId: a.taskId }, ctx())).toThrow(/Task not found/);
    expect(store.get({ taskId: c.taskId }, ctx()).taskId).toBe(c.taskId);
    second.open();
  });

  it('drops a task whose time to live is over and aborts its work', async () => {
    const store = new TaskStore(
      {},
      () => {},
      () => {},
    );
    let aborted = false;
    const t = store.serve(
      toolTask(
        (task) =>
          new Promise((_, reject) =>
            task.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('expired'));
            }),
          ),
        { ttlMs: 0 },
      ),
      ctx(),
      'short',
    ) as { taskId: string; ttlMs: number };
    expect(t.ttlMs).toBe(0);
    // The work starts on the next turn; then the next access finds the task expired.
    await new Promise((r) => setImmediate(r));
    expect(() => store.get({ taskId: t.taskId }, ctx())).toThrow(/Task not found/);
    expect(aborted).toBe(true);
    expect(store.size).toBe(0);
  });

  it("ids are random UUIDs, and a verified caller's task is unknown to another caller", () => {
    const store = new TaskStore(
      {},
      () => {},
      () => {},
    );
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const t = store.serve(
        toolTask(() => text('x')),
        ctx('alice'),
        'x',
      ) as { taskId: string };
      expect(t.taskId).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      ids.add(t.taskId);
    }
    expect(ids.size).toBe(50);
    const [one] = ids;
    expect(store.get({ taskId: one }, ctx('alice')).taskId).toBe(one);
    expect(() => store.get({ taskId: one }, ctx('mallory'))).toThrow(/Task not found/);
    expect(() => store.get({ taskId: one }, ctx())).toThrow(/Task not found/);
  });
});
