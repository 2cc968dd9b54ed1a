import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processKey, processTable, strayProcesses } from './support/process-table.js';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
// The trailing separator matters: without it, a sibling worktree whose path starts with
// this one's (`/work/wt/manager` vs `/work/wt/manager-adapters`) had its processes killed.
// Only this checkout's path: a test run in another checkout (a second worktree, a CI clone)
// starts processes of its own while this one runs, and they are not ours to kill. (Fixture
// grandchildren carry their file's path in their command line for this.)
const markers = [`${repoRoot}${path.sep}`];
/** Written when processes were left behind; .ci/count.mjs counts it as a failure. */
export const orphanReport = path.join(repoRoot, '.ci/orphans.txt');

/**
 * After the whole suite: no process started by a test may be left running. Processes
 * that escaped the test runner's tree mention the repository path (fixtures, servers
 * from node_modules) in their command line.
 */
export default function setup() {
  rmSync(orphanReport, { force: true });
  // Every process running now: what runs under one of them (a shell's benchmark) is not ours.
  const before = new Set(processTable().map(processKey));
  return async () => {
    await new Promise((r) => setTimeout(r, 200));
    const left = markers
      .flatMap((m) => strayProcesses(m, process.pid, before))
      .filter((p) => p.pid !== process.pid);
    if (left.length > 0) {
      const list = left.map((p) => `  ${p.pid} ${p.cmdline.slice(0, 160)}`).join('\n');
      for (const p of left) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {}
      }
      // Vitest reports errors thrown here but still exits 0: set the status ourselves.
      process.exitCode = 1;
      writeFileSync(orphanReport, list);
      throw new Error(`orphaned processes after the test suite (now killed):\n${list}`);
    }
    console.log('orphan check: 0 processes left behind');
  };
}
