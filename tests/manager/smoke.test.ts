import { McpManager } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { everythingStdio } from './helpers.js';

test('smoke: server-everything over stdio', async () => {
  await using manager = new McpManager({ servers: [everythingStdio()] });
  const snap = await manager.connectAll();
  expect(snap.servers[0]?.state).toBe('connected');
  const tools = await manager.tools();
  console.log(tools.map((t) => t.name).join(' '));
  const echo = tools.find((t) => t.tool === 'echo')!;
  const result = await echo.call({ message: 'hi' });
  expect(result.text).toContain('hi');
});
