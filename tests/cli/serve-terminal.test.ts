import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  type Sandbox,
  sandbox,
  serversDir,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * `mcpkit serve` started by hand at a terminal (tmux): it says what it is on stderr, and
 * the JSON lines it answers with reach the terminal with nothing a terminal acts on. A
 * backend's text holds a C1 CSI and a right-to-left override, which JSON.stringify leaves
 * raw; they are shown as `\u009b` and `\u202e`, and each line is still the same JSON.
 * Ctrl-C stops it and the backend with it, exit 130.
 */
const ansiServer = path.join(serversDir, 'cli-ansi-server.mjs');

const line = (message: object) => JSON.stringify({ jsonrpc: '2.0', ...message });

describe('mcpkit serve at a terminal', () => {
  it('says what it is, shows a backend’s controls escaped inside valid JSON, and stops on Ctrl-C', async () => {
    using box = sandbox('mcpkit-cli-serve-tty-');
    const tmux = new Tmux(box, box.env);
    try {
      await servedByHand(box, tmux);
    } catch (error) {
      console.log(tmux.screen());
      throw error;
    } finally {
      tmux.close();
    }
    // The terminal is gone and serve with it: no process of this test is left.
    expect(processesWith(box.dir)).toEqual([]);
  });
});

async function servedByHand(box: Sandbox, tmux: Tmux): Promise<void> {
  const config = box.file('servers.json', {
    mcpServers: { ansi: { command: process.execPath, args: [ansiServer, box.dir] } },
  });
  tmux.start([process.execPath, bin, '--strict-config', '-c', config, 'serve']);
  await waitFor(() => tmux.screen().includes('Ctrl-C stops'), 'the banner');
  expect(tmux.screen()).toContain(
    'mcpkit serve: 1 server (ansi) served as one MCP server on stdin/stdout.',
  );

  const typed = [
    line({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'me', version: '1' },
      },
    }),
    line({ method: 'notifications/initialized' }),
    line({ id: 2, method: 'tools/list' }),
  ];
  for (const text of typed) {
    tmux.sendKeys('-l', text);
    tmux.sendKeys('Enter');
  }
  await waitFor(() => tmux.screen().includes('"id":2,"result"'), 'the tools/list answer');

  const screen = tmux.screen();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what we look for
  expect(screen.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g)).toBeNull();
  const answer = screen.split('\n').find((l) => l.startsWith('{"jsonrpc":"2.0","id":2,"result"'))!;
  expect(answer).toContain('\\u009b31m\\u202eLIAME');
  // Still JSON, with the backend's own text once parsed.
  const tools = (JSON.parse(answer) as { result: { tools: Array<{ description: string }> } }).result
    .tools;
  expect(tools.some((t) => t.description.includes('\u009b31m\u202eLIAME'))).toBe(true);

  // Ctrl-C: the backend is closed, exit 130.
  tmux.sendKeys('C-c');
  expect(await waitFor(() => tmux.exitStatus(), 'serve to exit')).toBe(130);
}
