import { expect, test } from 'vitest';
import { Pool } from './pool.js';

test('a pool given a limit of 0 still runs its tasks (one at a time)', async () => {
  const pool = new Pool(0);
  expect(pool.limit).toBe(1);
  await expect(pool.run(async () => 'ran')).resolves.toBe('ran');
});

test('a pool starts no more than its limit at once; a settled task frees its slot', async () => {
  const pool = new Pool(2);
  const releases: Array<() => void> = [];
  const task = () => new Promise<void>((resolve) => releases.push(resolve));
  const all = Promise.all([pool.run(task), pool.run(task), pool.run(task)]);
  expect(pool.active).toBe(2);
  expect(releases.length).toBe(2);
  releases[0]?.();
  while (releases.length < 3) await new Promise((r) => setImmediate(r));
  expect(pool.active).toBe(2);
  for (const release of releases) release();
  await all;
  expect(pool.active).toBe(0);
});
