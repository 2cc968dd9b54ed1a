// Runs publint and "attw --profile esm-only" on every published package (packages/*).
// Needs a build first (it packs each package the way npm would).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
let failures = 0;

for (const dir of readdirSync(path.join(root, 'packages')).sort()) {
  const cwd = path.join(root, 'packages', dir);
  const pkg = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8'));
  for (const [label, command, args] of [
    ['publint', bin('publint'), ['--strict']],
    ['attw', bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped']],
  ]) {
    const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
    const ok = result.status === 0;
    if (!ok) failures++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${label.padEnd(8)} ${pkg.name}`);
    if (!ok) console.log((result.stdout + result.stderr).trim().replace(/^/gm, '     '));
  }
}
if (failures > 0) {
  console.error(`${failures} package check(s) failed`);
  process.exit(1);
}
