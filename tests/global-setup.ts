import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
/** Written when files were left in the run's temp dir; .ci/count.mjs counts it as a failure. */
export const leftoverReport = path.join(repoRoot, '.ci/tmp-leftovers.txt');

/** No process started by a test may be left running; those found are killed. */
async function orphanCheck(before: ReadonlySet<string>): Promise<string | undefined> {
  await new Promise((r) => setTimeout(r, 200));
  const left = markers
    .flatMap((m) => strayProcesses(m, process.pid, before))
    .filter((p) => p.pid !== process.pid);
  if (left.length === 0) {
    console.log('orphan check: 0 processes left behind');
    return undefined;
  }
  const list = left.map((p) => `  ${p.pid} ${p.cmdline.slice(0, 160)}`).join('\n');
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
  writeFileSync(orphanReport, list);
  return `orphaned processes after the test suite (now killed):\n${list}`;
}

/** Nothing may be left in the run's own temp dir; it is removed either way. */
function leftoverCheck(runTmp: string): string | undefined {
  const left = readdirSync(runTmp).sort();
  rmSync(runTmp, { recursive: true, force: true });
  if (left.length === 0) {
    console.log('temp dir check: 0 files left behind');
    return undefined;
  }
  const list = left.map((name) => `  ${name}`).join('\n');
  writeFileSync(leftoverReport, list);
  return `files left in the test run's temp dir (${runTmp}, now removed):\n${list}`;
}

/**
 * Around the whole suite. The run gets a temp dir of its own (TMPDIR, which os.tmpdir() and
 * the processes that inherit the environment honour): what a test leaves there fails the
 * run, where in the shared /tmp it went unseen. After the suite, no process started by a
 * test may be left running either: those that escaped the test runner's tree mention the
 * repository path (fixtures, servers from node_modules) in their command line.
 */
export default function setup() {
  rmSync(orphanReport, { force: true });
  rmSync(leftoverReport, { force: true });
  // Every process running now: what runs under one of them (a shell's benchmark) is not ours.
  const before = new Set(processTable().map(processKey));
  const outerTmp = process.env.TMPDIR;
  const runTmp = mkdtempSync(path.join(tmpdir(), 'mcpkit-test-run-'));
  // As open as /tmp itself (mkdtemp makes it private): the tests that run the CLI as another
  // user (hostile/config-policy: nobody) must reach their sandbox inside it.
  chmodSync(runTmp, 0o1777);
  // Set before the workers start: they, and what they spawn with process.env, inherit it.
  process.env.TMPDIR = runTmp;
  return async () => {
    const orphans = await orphanCheck(before);
    if (outerTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outerTmp;
    const leftovers = leftoverCheck(runTmp);
    const problems = [orphans, leftovers].filter((p) => p !== undefined);
    if (problems.length > 0) {
      // Vitest reports errors thrown here but still exits 0: set the status ourselves.
      process.exitCode = 1;
      throw new Error(problems.join('\n'));
    }
  };
}
