import { describe, expect, it } from 'vitest';
import { commandHelp } from './usage.js';

describe('commandHelp', () => {
  it('"serve --help" shows serve\'s own options (they were left out), --max-message-bytes among them', () => {
    const help = commandHelp('serve');
    expect(help).toContain('mcpkit [options] serve [--http [host:]port]');
    expect(help).toContain('--backend-wait-ms <ms>');
    expect(help).toMatch(/--max-message-bytes <n> {2}also bounds what clients send/);
    // The next command's block is not part of it.
    expect(help.slice(0, help.indexOf('Options:'))).not.toContain('mcpkit login');
  });

  it('"call --help" keeps the continuation line of its usage', () => {
    const help = commandHelp('call');
    expect(help).toContain('[- | key=value...]');
    expect(help.slice(0, help.indexOf('Options:'))).not.toContain('mcpkit [options] read');
  });
});
