import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './config.js';
import { compositionView } from './view.js';

const config = parseGatewayConfig(
  `{
  "servers": {
    "notes": { "tags": ["team-a"], "exclude": ["delete_*"] },
    "notes/x": {},
    "fs": { "include": ["read_*"], "tags": ["team-b"] }
  },
  "endpoints": {
    "a": { "tags": ["team-a"] },
    "b": { "servers": ["fs"], "tools": [{ "server": "fs", "tool": "read_file" }] },
    "echoes": { "tools": ["echo"] }
  },
  "default": "a"
}`,
  { file: 'gateway.jsonc' },
);

describe('compositionView', () => {
  it('selects servers by tag and by name', () => {
    const a = compositionView(config, 'a');
    expect(['notes', 'notes/x', 'fs'].filter(a.serves)).toEqual(['notes']);
    expect(compositionView(config, 'b').serves('notes')).toBe(false);
  });

  it('matches tool patterns on the (server, tool) pair, never a joined string', () => {
    const echoes = compositionView(config, 'echoes');
    expect(echoes.allowsTool('notes', 'echo')).toBe(true);
    // "notes/x" + "echo" joined is not "echo", nor is "notes" + "x/echo".
    expect(echoes.allowsTool('notes', 'x/echo')).toBe(false);
    const b = compositionView(config, 'b');
    expect(b.allowsTool('fs', 'read_file')).toBe(true);
    expect(b.allowsTool('fs', 'read_dir')).toBe(false);
  });

  it('applies a server’s include and exclude in every endpoint', () => {
    const all = compositionView({ ...config, default: undefined });
    expect(all.allowsTool('notes', 'delete_note')).toBe(false);
    expect(all.allowsTool('notes', 'echo')).toBe(true);
    expect(all.allowsTool('fs', 'write_file')).toBe(false);
  });

  it('serves the default endpoint at /mcp, and refuses an unknown endpoint', () => {
    expect(compositionView(config).endpoint).toBe('a');
    expect(() => compositionView(config, 'nope')).toThrow(RangeError);
  });
});
