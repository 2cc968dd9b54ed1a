import { McpkitError } from '@mcpkit/jsonrpc';
import { ServerNotEnabledError as ManagerServerNotEnabledError } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { ServerNotEnabledError } from './gate.js';

describe("the CLI's ServerNotEnabledError", () => {
  it("has a brand of its own: isInstance does not confuse it with the manager's class of the same name", () => {
    const cli = new ServerNotEnabledError('x', 'disabled', 'server "x" is disabled');
    const manager = new ManagerServerNotEnabledError('x', 'disabled', undefined);
    expect(ServerNotEnabledError.isInstance(cli)).toBe(true);
    expect(ManagerServerNotEnabledError.isInstance(manager)).toBe(true);
    expect(ManagerServerNotEnabledError.isInstance(cli)).toBe(false);
    expect(ServerNotEnabledError.isInstance(manager)).toBe(false);
    // Both are still mcpkit errors with the same code.
    expect(McpkitError.isInstance(cli) && McpkitError.isInstance(manager)).toBe(true);
    expect(cli.code).toBe(manager.code);
  });
});
