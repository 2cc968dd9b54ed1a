// Runs publint and "attw --profile esm-only" on every published package (packages/*).
// Needs a build first (it packs each package the way npm would). Two checks run at a time:
// each is mostly a child process waiting on npm pack and the compiler.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** Runs one check; resolves with its status and output (never rejects). */
function run(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ status: 1, output: String(error) }));
    child.on('close', (status) => resolve({ status, output }));
  });
}

// All publint runs first, then all attw runs: two checks of one package never overlap
// (attw packs a tarball into the package's folder).
const packages = readdirSync(path.join(root, 'packages'))
  .sort()
  .map((dir) => {
    const cwd = path.join(root, 'packages', dir);
    return { cwd, name: JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')).name };
  });
const jobs = [
  ...packages.map((p) => ({ ...p, label: 'publint', command: bin('publint'), args: ['--strict'] })),
  ...packages.map((p) => ({
    ...p,
    label: 'attw',
    command: bin('attw'),
    args: ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped'],
  })),
];

const results = new Array(jobs.length);
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const i = next++;
    const job = jobs[i];
    results[i] = { job, ...(await run(job.command, job.args, job.cwd)) };
  }
}
await Promise.all([worker(), worker()]);

let failures = 0;
// Printed in the fixed order, whatever order they finished in.
for (const { job, status, output } of results) {
  const ok = status === 0;
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${job.label.padEnd(8)} ${job.name}`);
  if (!ok) console.log(output.trim().replace(/^/gm, '     '));
}
if (failures > 0) {
  console.error(`${failures} package check(s) failed`);
  process.exit(1);
}
