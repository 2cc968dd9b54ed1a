import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from './config.js';
import { watchGatewayConfig } from './watch.js';

/** A real file in a temporary folder, watched for real; each step waits for its callback. */
describe('watchGatewayConfig', () => {
  let dir: string;
  let close: (() => void) | undefined;
  afterEach(() => {
    close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the last good text saved again after a bad one is applied again (a host that failed closed recovers)', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-watch-'));
    const file = path.join(dir, 'gateway.jsonc');
    const good = '{ "access": { "rules": [ { "servers": ["notes"] } ] } }';
    writeFileSync(file, good);
    const events: Array<GatewayConfig | Error> = [];
    let heard: (() => void) | undefined;
    const next = () =>
      new Promise<void>((resolve) => {
        heard = resolve;
      });
    const watcher = watchGatewayConfig(
      file,
      {
        debounceMs: 20,
        onconfig: (config) => {
          events.push(config);
          heard?.();
        },
        onerror: (error) => {
          events.push(error);
          heard?.();
        },
      },
      good,
    );
    close = () => watcher.close();
    let step = next();
    writeFileSync(file, '{ "access": { "rules": [ { "servers": "notes" } ] } }');
    await step;
    expect(events.at(-1)).toBeInstanceOf(Error);
    step = next();
    writeFileSync(file, good);
    await step;
    expect(events.at(-1)).toEqual({ access: { rules: [{ servers: ['notes'] }] } });
  });
});
