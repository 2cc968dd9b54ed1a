import { describe, expect, it } from 'vitest';
import { applyShellPrefix, quotePosix, resolveCommand } from './command-line.js';

describe('resolveCommand', () => {
  it('leaves POSIX commands alone', () => {
    expect(resolveCommand('npx', ['-y', 'x'], { platform: 'linux', env: {} })).toEqual({
      command: 'npx',
      args: ['-y', 'x'],
    });
  });

  it('on Windows runs a .cmd shim found through PATH and PATHEXT via cmd.exe', () => {
    const r = resolveCommand('npx', ['-y', '@scope/server', 'a b'], {
      platform: 'win32',
      env: {
        Path: 'C:\\Windows;C:\\nodejs',
        PATHEXT: '.COM;.EXE;.BAT;.CMD',
        ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      },
      // Windows file names are case-insensitive.
      exists: (f) => f.toLowerCase() === 'c:\\nodejs\\npx.cmd',
    });
    expect(r).toEqual({
      command: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '"C:\\nodejs\\npx.CMD -y @scope/server "a b""'],
      windowsVerbatimArguments: true,
    });
  });

  it('on Windows spawns an .exe directly', () => {
    const r = resolveCommand('node', ['s.js'], {
      platform: 'win32',
      env: { PATH: 'C:\\nodejs' },
      exists: (f) => f === 'C:\\nodejs\\node.EXE',
    });
    expect(r).toEqual({ command: 'C:\\nodejs\\node.EXE', args: ['s.js'] });
  });
});

describe('shell prefix', () => {
  it('quotes each word of the command line', () => {
    expect(applyShellPrefix('/usr/bin/sandbox', 'node', ['my server.js', "it's"])).toEqual({
      command: '/usr/bin/sandbox',
      args: [`node 'my server.js' 'it'\\''s'`],
    });
    expect(quotePosix('')).toBe("''");
  });
});
