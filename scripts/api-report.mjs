// API reports: one `packages/<dir>/api/<entry>.api.md` per public entry point of every
// published package, written by API Extractor from the built declarations (needs a build).
//
//   node scripts/api-report.mjs           compare; exits 1 when a public surface changed
//   node scripts/api-report.mjs --update  rewrite the reports (`pnpm api:update`)
//
// Packages are discovered, not listed: every non-private package under packages/ and every
// subpath of its exports map that has a `types` entry gets a report (`./internal` and
// `./package.json` excepted: they are not public API). A new package needs no edit here.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = path.resolve(import.meta.dirname, '..');
const update = process.argv.includes('--update');
// API Extractor writes each report here before comparing it. Removed on the way out, however
// the run ends (a failed comparison exits 1; an error in API Extractor throws).
const tempRoot = mkdtempSync(path.join(tmpdir(), 'mcpkit-api-report-'));
process.on('exit', () => rmSync(tempRoot, { recursive: true, force: true }));
const started = Date.now();
let failures = 0;
let reports = 0;

/** The `types` path of one exports-map entry, or undefined. */
function typesOf(target) {
  if (typeof target === 'string') return target.endsWith('.d.ts') ? target : undefined;
  if (target && typeof target === 'object')
    return typeof target.types === 'string' ? target.types : undefined;
  return undefined;
}

/** `.` → `index`; `./http-fallback` → `http-fallback`; `./a/b` → `a-b`. */
function reportNameOf(subpath) {
  return subpath === '.' ? 'index' : subpath.replace(/^\.\//, '').replaceAll('/', '-');
}

for (const dir of readdirSync(path.join(root, 'packages')).sort()) {
  const projectFolder = path.join(root, 'packages', dir);
  const packageJsonFullPath = path.join(projectFolder, 'package.json');
  if (!existsSync(packageJsonFullPath)) continue;
  const pkg = JSON.parse(readFileSync(packageJsonFullPath, 'utf8'));
  if (pkg.private) continue;
  const exportsMap = pkg.exports ?? (pkg.types ? { '.': { types: pkg.types } } : {});
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (
      subpath === './package.json' ||
      subpath === './internal' ||
      subpath.startsWith('./internal/')
    )
      continue;
    const types = typesOf(target);
    if (!types) continue;
    const entry = path.join(projectFolder, types);
    const label = `${pkg.name}${subpath === '.' ? '' : subpath.slice(1)}`;
    if (!existsSync(entry)) {
      failures++;
      console.log(`FAIL api      ${label}: ${types} is missing (run pnpm build first)`);
      continue;
    }
    const reportTempFolder = path.join(tempRoot, dir);
    mkdirSync(reportTempFolder, { recursive: true });
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder,
        mainEntryPointFilePath: entry,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022',
              lib: ['ES2023'],
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              skipLibCheck: true,
              types: ['node'],
            },
            files: [entry],
          },
        },
        apiReport: {
          enabled: true,
          reportFolder: path.join(projectFolder, 'api'),
          reportTempFolder,
          reportFileName: reportNameOf(subpath),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages: {
          // The report is a review aid for the surface, not a doc linter: release tags and
          // TSDoc syntax are not part of this house's style.
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          extractorMessageReporting: {
            default: { logLevel: 'none' },
            'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath,
    });
    mkdirSync(path.join(projectFolder, 'api'), { recursive: true });
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      // The temp copy is gone when the run ends: show what changed instead of its path.
      printApiReportDiff: true,
      messageCallback: (message) => {
        // Keep the console quiet unless something is wrong. "Please copy <temp file>" names a
        // file removed on exit; the FAIL line says what to run.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        if (message.messageId === 'console-api-report-not-copied') message.handled = true;
      },
    });
    reports++;
    const relative = path.relative(
      root,
      path.join(projectFolder, 'api', `${reportNameOf(subpath)}.api.md`),
    );
    if (!result.succeeded) {
      failures++;
      console.log(
        result.apiReportChanged
          ? `FAIL api      ${label}: public surface differs from ${relative} (run pnpm api:update and commit it)`
          : `FAIL api      ${label}: ${result.errorCount} error(s)`,
      );
    } else {
      console.log(`${result.apiReportChanged ? 'new ' : 'ok  '} api      ${label}`);
    }
  }
}
console.log(`${reports} API report(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (failures > 0) {
  console.error(`${failures} API report(s) failed`);
  process.exit(1);
}
