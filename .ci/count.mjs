// Prints the plain count line CI reads, summed over vitest's JSON reports (the main run
// and the conformance run). A missing report means its run never happened: a failure.
import { existsSync, readFileSync } from 'node:fs';

const files = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(
      `no test report at ${file}: the build, a check or an earlier run failed before it`,
    );
    ok = false;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  // A file that failed without a failing test (it did not even load) counts once.
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === 'failed').length;
    if (file.status === 'failed' && failedTests === 0) failed += 1;
  }
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  if (report.success === false) ok = false;
}
// The checks of tests/global-setup.ts: each counts as one failed test.
const checks = [
  ['./orphans.txt', 'processes left behind by the tests'],
  ['./tmp-leftovers.txt', "files the tests left in the run's temp dir"],
];
for (const [file, what] of checks) {
  const report = new URL(file, import.meta.url);
  if (!existsSync(report)) continue;
  console.error(`${what}:\n${readFileSync(report, 'utf8')}`);
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok && failed === 0 ? 0 : 1);
