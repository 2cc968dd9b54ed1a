import { afterEach, describe, expect, it } from 'vitest';
import { type AppsHost, startAppsHost } from './apps-host.js';

/**
 * `mcpkit apps` tells the terminal which configured servers its page will not have, and
 * why, in the words every other command uses: a server the gate does not start, and one
 * that failed to connect (with its last stderr). Without these lines the page's tool
 * list is simply short, with nothing to say what to do.
 */
describe('mcpkit apps: servers the page will not have are named on the terminal', () => {
  let host: AppsHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  it('a disabled server and a server that exits at start', async () => {
    host = await startAppsHost({
      off: { command: process.execPath, args: ['-e', ''], disabled: true },
      broken: {
        command: process.execPath,
        args: ['-e', 'console.error("broken: no database"); process.exit(3)'],
      },
    });
    // The failure is known once the first connect settles; the page waits for it too.
    const deadline = Date.now() + 60_000;
    while (!host.stderr().includes('no database') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const lines = host.stderr().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^mcpkit apps: not started: server "off" is disabled in dynamic config 1: remove its "disabled": true there$/,
      ),
    );
    const broken = lines.findIndex((l) => l.startsWith('mcpkit apps: server "broken"'));
    expect(broken, host.stderr()).toBeGreaterThanOrEqual(0);
    expect(lines[broken]).toMatch(/process exited with code 3/);
    // Its last stderr comes with it, on the lines after, neutralized and prefixed.
    expect(lines.slice(broken).join('\n')).toContain('broken: no database');
  }, 90_000);
});
