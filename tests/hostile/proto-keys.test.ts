import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { McpManager } from '@mcpkit/manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolved } from '../manager/helpers.js';
import { runCli, type Sandbox, sandbox, serversDir } from './cli-harness.js';
import { PROTO_CONTENTS, PROTO_RESULT, PROTO_TEXT_RESULT } from './servers/proto-keys-server.mjs';

// A key named `__proto__` is plain data in JSON. zod copies an object by assignment and so
// loses it: a result the schema checked came out without the server's key. The checks now
// keep the server's own object, so the key reaches the library's caller and the CLI's
// --json output as sent, as an own key (nothing gets a new prototype).

const server = `${serversDir}proto-keys-server.mjs`;
let box: Sandbox;

beforeAll(() => {
  box = sandbox('mcpkit-proto-keys-');
  const config = path.join(box.home, '.config', 'mcpkit', 'mcp.json');
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { proto: { command: process.execPath, args: [server] } } }),
  );
});

afterAll(() => box[Symbol.dispose]());

const hasOwnProto = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Object.hasOwn(v, '__proto__');
/** The value of an own key named `__proto__` (not the accessor). */
const ownProto = (v: object): unknown => Object.getOwnPropertyDescriptor(v, '__proto__')?.value;

describe('keys named __proto__ in what a server sends', () => {
  it('the manager hands over call results and resource contents with them, byte for byte', async () => {
    await using manager = new McpManager({
      servers: [resolved('proto', { type: 'stdio', command: process.execPath, args: [server] })],
    });
    await manager.connectAll();
    const client = await manager.client('proto');
    const call = await client.callTool({ name: 'proto', arguments: {} });
    expect(JSON.stringify(call)).toBe(PROTO_RESULT);
    expect(Object.getPrototypeOf(call.structuredContent)).toBe(Object.prototype);
    const text = await client.callTool({ name: 'proto-text', arguments: {} });
    expect(JSON.stringify(text)).toBe(PROTO_TEXT_RESULT);
    const read = await manager.readResource('proto', 'proto://r');
    expect(JSON.stringify(read)).toBe(PROTO_CONTENTS);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('mcpkit --json call and read print them as the server sent them', async () => {
    const opts = { env: box.env, cwd: box.cwd };
    const [call, text, read] = await Promise.all([
      runCli(['--json', 'call', 'proto', 'proto'], opts),
      runCli(['--json', 'call', 'proto', 'proto-text'], opts),
      runCli(['--json', 'read', 'proto', 'proto://r'], opts),
    ]);
    expect(call.code, call.stderr).toBe(0);
    const callOut = JSON.parse(call.stdout);
    expect(hasOwnProto(callOut.structuredContent)).toBe(true);
    expect(ownProto(callOut.structuredContent)).toEqual({ admin: true });
    expect(hasOwnProto(callOut._meta)).toBe(true);
    expect(text.code, text.stderr).toBe(0);
    expect(hasOwnProto(JSON.parse(text.stdout).structuredContent)).toBe(true);
    expect(read.code, read.stderr).toBe(0);
    const contents = JSON.parse(read.stdout).contents;
    expect(hasOwnProto(contents[0]._meta)).toBe(true);
    expect(ownProto(contents[0]._meta)).toEqual([1, 2]);
  });
});
