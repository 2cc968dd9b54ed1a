import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GatewayConfigError, gatewayConfigJsonSchema, parseGatewayConfig } from './config.js';

const parse = (text: string, servers?: string[]) =>
  parseGatewayConfig(text, { file: 'gateway.jsonc', ...(servers ? { servers } : {}) });

function failure(text: string, servers?: string[]): GatewayConfigError {
  try {
    parse(text, servers);
  } catch (error) {
    expect(GatewayConfigError.isInstance(error)).toBe(true);
    return error as GatewayConfigError;
  }
  throw new Error('the config was accepted');
}

describe('gateway config', () => {
  it('matches the committed schema.json (regenerate with: pnpm --filter @mcpkit/gateway schema)', () => {
    const committed = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../schema.json', import.meta.url)), 'utf8'),
    );
    expect(gatewayConfigJsonSchema()).toEqual(committed);
  });

  it('reads JSONC with comments and trailing commas', () => {
    const config = parse(`{
      // team A sees notes only
      "servers": { "notes": { "prefix": false, "tools": { "echo": { "name": "say", }, }, }, },
      "endpoints": { "team-a": { "servers": ["notes"], "mode": "search" } },
    }`);
    expect(config.servers?.notes?.prefix).toBe(false);
    expect(config.servers?.notes?.tools?.echo?.name).toBe('say');
    expect(config.endpoints?.['team-a']?.mode).toBe('search');
  });

  it('names the line, column and key of an unknown key', () => {
    const error = failure('{\n  "servers": {\n    "notes": { "prefx": "n" }\n  }\n}');
    expect(error.code).toBe('MCPKIT_GATEWAY_CONFIG_INVALID');
    expect(error).toMatchObject({ path: 'servers.notes.prefx', line: 3, column: 16 });
    expect(error.message).toContain('unknown key "prefx"');
  });

  it('names the line and column of a syntax error', () => {
    const error = failure('{\n  "servers": {\n    "notes": { "prefix" "n" }\n}');
    expect(error.line).toBe(3);
    expect(error.message).toContain('invalid JSON');
  });

  it('names the key of a value of the wrong type', () => {
    const error = failure('{ "servers": { "notes": { "include": "echo" } } }');
    expect(error).toMatchObject({ path: 'servers.notes.include', line: 1, column: 27 });
  });

  it('refuses two tools renamed to one name, naming both', () => {
    const error = failure(`{ "servers": {
      "a": { "tools": { "echo": { "name": "say" } } },
      "b": { "tools": { "shout": { "name": "say" } } }
    } }`);
    expect(error.path).toBe('servers.b.tools.shout.name');
    expect(error.line).toBe(3);
    expect(error.message).toContain('"echo" of server "a"');
    expect(error.message).toContain('"shout" of server "b"');
  });

  it('refuses a value without hide, and a hidden argument with a default or rename', () => {
    const error = failure(`{ "servers": { "a": { "tools": { "t": { "arguments": {
      "x": { "value": 1 },
      "y": { "hide": true, "rename": "z" }
    } } } } } }`);
    expect(error.issues.map((i) => i.path)).toEqual([
      'servers.a.tools.t.arguments.x.value',
      'servers.a.tools.t.arguments.y.rename',
    ]);
  });

  it('refuses two arguments shown under one name', () => {
    const error = failure(
      '{ "servers": { "a": { "tools": { "t": { "arguments": { "x": { "rename": "y" }, "y": {} } } } } } }',
    );
    expect(error.message).toContain('both be shown as "y"');
  });

  it('refuses a server or endpoint server the MCP config does not have, and an unknown default', () => {
    const error = failure(
      '{ "servers": { "nope": {} }, "endpoints": { "e": { "servers": ["gone"] } }, "default": "f" }',
      ['notes'],
    );
    expect(error.issues.map((i) => i.path)).toEqual([
      'servers.nope',
      'endpoints.e.servers[0]',
      'default',
    ]);
  });

  it('never lets a __proto__ key change a prototype', () => {
    const config = parse('{ "servers": { "__proto__": { "prefix": "p" } } }');
    expect((config.servers as { prefix?: string } | undefined)?.prefix).toBeUndefined();
    expect(({} as { prefix?: string }).prefix).toBeUndefined();
  });
});
