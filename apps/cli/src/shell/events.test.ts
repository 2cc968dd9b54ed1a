import type { ServerState } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { ListChanges, stateLine } from './events.js';

const tools = (...names: string[]) => names.map((tool) => ({ tool }));
const diff = (added: string[], removed: string[] = [], changed: string[] = []) => ({
  server: 'srv',
  added: tools(...added),
  removed: tools(...removed),
  changed: tools(...changed),
});

describe('ListChanges', () => {
  it('says nothing for the first list, nor for a list emptied and filled again the same (a crash, a refetch)', () => {
    const c = new ListChanges();
    expect(c.apply('tools', diff(['a', 'b']))).toBeUndefined();
    expect(c.apply('tools', diff([], ['a', 'b']))).toBeUndefined();
    expect(c.apply('tools', diff(['a', 'b']))).toBeUndefined();
  });

  it('says what was added, removed and changed against what was last said', () => {
    const c = new ListChanges();
    c.apply('tools', diff(['a', 'b']));
    expect(c.apply('tools', diff(['c']))).toBe('[srv] tools changed: +c');
    expect(c.apply('tools', diff([], ['a'], ['b']))).toBe('[srv] tools changed: -a ~b');
    // Emptied, then refilled with a difference: the difference is said once.
    expect(c.apply('tools', diff([], ['b', 'c']))).toBeUndefined();
    expect(c.apply('tools', diff(['b', 'd']))).toBe('[srv] tools changed: +d -c');
    // Kinds and servers are kept apart.
    expect(
      c.apply('prompts', { server: 'srv', added: [{ prompt: 'p' }], removed: [], changed: [] }),
    ).toBeUndefined();
  });
});

describe('stateLine', () => {
  it('a connected server whose tools/list failed is said to be degraded, with the failure and the next step', () => {
    const error = new Error(
      'server "srv": "tools/list" failed: the tool registry is unavailable (-32603)',
    );
    const state = {
      name: 'srv',
      state: 'connected',
      protocolVersion: '2025-11-25',
      era: 'legacy',
      connectMs: 5,
      degraded: [
        {
          list: 'tools',
          error,
          message: error.message,
          rpcCode: -32603,
          failedAt: 0,
          retryAt: 1,
          nextStep: { kind: 'retry', at: 1 },
        },
      ],
    } as unknown as ServerState;
    expect(stateLine(state)).toBe(
      '[srv] degraded: "tools/list" failed: the tool registry is unavailable (-32603); run the command again; if it keeps failing, run "mcpkit -v tools -s srv" to see the server\'s stderr',
    );
  });
});
