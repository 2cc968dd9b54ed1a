import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from './io.js';
import { openServeStore, REDIS_STORE_PACKAGE, storeRequest } from './serve-store.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-serve-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('storeRequest', () => {
  it('takes --redis over MCPKIT_REDIS_URL over the config, and checks --replica-id', () => {
    const config = { redis: 'redis://config:6379' };
    expect(
      storeRequest({ redis: 'redis://flag:1' }, { MCPKIT_REDIS_URL: 'redis://env:2' }, config),
    ).toEqual({ url: 'redis://flag:1', source: 'flag', replicaId: undefined });
    expect(storeRequest({}, { MCPKIT_REDIS_URL: 'redis://env:2' }, config)?.source).toBe(
      'environment',
    );
    expect(storeRequest({ 'replica-id': 'r-1' }, {}, config)).toEqual({
      url: 'redis://config:6379',
      source: 'config',
      replicaId: 'r-1',
    });
    expect(storeRequest({}, {}, undefined)).toBeUndefined();
    expect(() => storeRequest({ 'replica-id': 'r-1' }, {}, undefined)).toThrow(
      '--replica-id needs --redis',
    );
    expect(() => storeRequest({ redis: 'redis://x', 'replica-id': 'a~b' }, {}, undefined)).toThrow(
      UsageError,
    );
  });
});

describe('openServeStore', () => {
  it('names the package to install when it cannot be found (a real failed import)', async () => {
    // A module outside the workspace, importing the package: Node cannot resolve it there.
    const importer = path.join(dir, 'importer.mjs');
    writeFileSync(importer, `export * from '${REDIS_STORE_PACKAGE}';\n`);
    const error = await openServeStore(
      { url: 'redis://127.0.0.1:1', source: 'flag', replicaId: undefined },
      undefined,
      () => import(pathToFileURL(importer).href),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `--redis needs the ${REDIS_STORE_PACKAGE} package, which is not installed: install it where mcpkit is installed (npm install -g ${REDIS_STORE_PACKAGE})`,
    );
  });

  it('refuses a URL the store cannot read, without showing its password', async () => {
    const error = await openServeStore(
      { url: 'http://:hunter2@redis:6379', source: 'flag', replicaId: undefined },
      undefined,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('--redis: not a Redis URL');
    expect((error as Error).message).not.toContain('hunter2');
  });
});
