import { describe, expect, it } from 'vitest';
import { allFlags, commandTable, flagsOf } from '../commands/command-table.js';
import { usage } from '../main.js';
import { commandHelp } from './usage.js';

const help = (name: string) =>
  commandHelp(commandTable.get(name)!.help[name]!, flagsOf(name), allFlags);

describe('help pages', () => {
  it('"mcpkit --help" fits in 40 lines, one line a command (it was 60, and scrolled off a 50-line terminal)', () => {
    const text = usage();
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
    for (const name of ['servers', 'tools', 'call', 'serve', 'login', 'add', 'import', 'doctor'])
      expect(text).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('every command name has a page with its usage and two or three examples', () => {
    for (const [name, c] of commandTable) {
      const page = help(name);
      expect(page).toContain(`usage: mcpkit ${c.help[name]!.usage}`);
      const examples = page
        .slice(page.indexOf('Examples:'))
        .split('\n')
        .filter((l) => l.startsWith('  mcpkit') || l.includes('| mcpkit'));
      expect(examples.length, name).toBeGreaterThanOrEqual(1);
      expect(examples.length, name).toBeLessThanOrEqual(3);
    }
  });

  it('"call --help" shows only the flags call takes (it listed --login-timeout, -e, -H, --transport)', () => {
    const page = help('call');
    expect(page).toContain('--no-check');
    expect(page).toContain('--elicit <json>');
    for (const other of [
      '--login-timeout',
      '--env',
      '--header',
      '--transport',
      '--scope',
      '--token',
    ])
      expect(page).not.toContain(other);
  });

  it('"serve --help" shows serve\'s own options, --max-message-bytes in its serve words', () => {
    const page = help('serve');
    expect(page).toContain('usage: mcpkit serve [--http [host:]port]');
    expect(page).toContain('--backend-wait-ms <ms>');
    expect(page).toMatch(/--max-message-bytes <n>[\s\S]*a larger --http body gets 413/);
    expect(page).not.toContain('--elicit');
  });
});
