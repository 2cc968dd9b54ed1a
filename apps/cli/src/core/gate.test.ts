import type { ResolvedServer } from '@mcpkit/config';
import { ConfigErrorCode } from '@mcpkit/config';
import {
  createTransport,
  ServerNotEnabledError as ManagerServerNotEnabledError,
  type TransportContext,
} from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { assertMayContact, errorText, ServerNotEnabledError } from './gate.js';

const entry = (status: string, disabled = false): ResolvedServer =>
  ({
    name: 'x',
    scope: 'project',
    source: '/p/.mcp.json',
    config: { type: 'stdio', command: 'node', ...(disabled ? { disabled: true } : {}) },
    status,
    reason: status === 'blocked' ? 'blocked by policy: not on the allow list' : 'test',
    policy: { allowed: status !== 'blocked' },
    missingVariables: [],
  }) as unknown as ResolvedServer;

function refusal(check: (s: ResolvedServer) => void, server: ResolvedServer): unknown {
  try {
    check(server);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('one gate: the CLI and the manager refuse with the same function and class', () => {
  it('the manager re-exports the one class, and both paths throw it for the same entries', async () => {
    expect(ManagerServerNotEnabledError).toBe(ServerNotEnabledError);
    for (const server of [
      entry('pending-approval'),
      entry('rejected'),
      entry('blocked'),
      entry('disabled'),
      // `disabled: true` on an entry the resolver called enabled: the CLI's gate let it through before.
      entry('enabled', true),
    ]) {
      const cli = refusal(assertMayContact, server);
      // The manager's default transport factory runs the gate before it makes anything.
      const manager = await Promise.resolve()
        .then(() => createTransport(server, {} as TransportContext))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(ServerNotEnabledError.isInstance(cli)).toBe(true);
      expect(ServerNotEnabledError.isInstance(manager)).toBe(true);
      expect((cli as ServerNotEnabledError).code).toBe(ConfigErrorCode.NotEnabled);
      expect((cli as ServerNotEnabledError).status).toBe((manager as ServerNotEnabledError).status);
    }
    expect(refusal(assertMayContact, entry('enabled'))).toBeUndefined();
  });

  it("the CLI words the refusal from the error's facts, not from its message", () => {
    const error = refusal(assertMayContact, entry('pending-approval')) as ServerNotEnabledError;
    const before = errorText(error);
    Object.defineProperty(error, 'message', { value: 'some other library wording' });
    expect(errorText(error)).toBe(before);
    expect(before).toBe(
      'server "x" (/p/.mcp.json) waits for approval: run "mcpkit approve x" (nothing was sent to it)',
    );
    const off = refusal(assertMayContact, entry('enabled', true)) as ServerNotEnabledError;
    expect(errorText(off)).toBe(
      'server "x" is disabled in /p/.mcp.json: run "mcpkit enable x" (nothing was sent to it)',
    );
  });
});
