import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { faultServer, tempDir } from './helpers.js';

const host = fileURLToPath(new URL('./fixtures/stdio-only-host.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../packages/manager/dist/index.js', import.meta.url));

test('a host that only runs stdio servers never loads undici, ws or the HTTP and WebSocket transports (built package)', () => {
  if (!existsSync(built)) throw new Error(`${built} is missing: run "pnpm build" first`);
  using tmp = tempDir();
  const log = tmp.file('modules.log');
  const run = spawnSync(process.execPath, [host, faultServer, 'ok'], {
    env: { PATH: process.env.PATH, MCPKIT_MODULE_LOG: log },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('ok\n');
  const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  expect(loaded.some((u) => u.includes('/transport-stdio/'))).toBe(true);
  const unwanted = loaded.filter((u) =>
    /\/(undici|ws|transport-websocket|transport-streamable-http|transport-sse|eventsource-parser)\//.test(
      u,
    ),
  );
  expect(unwanted).toEqual([]);
});
