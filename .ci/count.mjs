// Prints the plain count line CI reads, from vitest's JSON report.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file || !existsSync(file)) {
  console.log('0 passed, 0 failed');
  console.error('no test report: the build or a check failed before the tests ran');
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const orphans = new URL('./orphans.txt', import.meta.url);
const leaked = existsSync(orphans);
if (leaked) console.error(`processes left behind by the tests:\n${readFileSync(orphans, 'utf8')}`);
const passed = report.numPassedTests ?? 0;
// The orphan check counts as one failed test.
const failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0) + (leaked ? 1 : 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || report.success === false ? 1 : 0);
