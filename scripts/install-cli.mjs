// Puts `mcpkit` on the PATH from a clone: packs the CLI, the @mcpkit packages it needs and
// its optional @mcpkit peers (`pnpm pack`, as they would be published), then installs those tarballs with
// `npm install -g` (into npm's global prefix: `npm prefix -g`; set NPM_CONFIG_PREFIX or
// `npm config set prefix ~/.local` for one you can write). Needs a build first
// (`pnpm run install-cli` builds, then runs this). Extra arguments go to `npm install`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const manifests = new Map();
for (const parent of ['packages', 'apps'])
  for (const dir of readdirSync(path.join(root, parent))) {
    const folder = path.join(root, parent, dir);
    try {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      manifests.set(manifest.name, { folder, manifest });
    } catch {
      // not a package
    }
  }

/** The CLI and every workspace package it depends on, directly or not. */
const wanted = new Set();
const visit = (name) => {
  if (wanted.has(name) || !manifests.has(name)) return;
  wanted.add(name);
  for (const dep of Object.keys(manifests.get(name).manifest.dependencies ?? {})) visit(dep);
};
visit('mcpkit');
// The CLI's optional workspace peers (`@mcpkit/gateway-redis` for `serve --redis`) come too:
// a clone has no registry to fetch them from later. npm resolves a global package's peer
// from its sibling in the same global folder.
for (const peer of Object.keys(manifests.get('mcpkit').manifest.peerDependencies ?? {}))
  visit(peer);

const packs = mkdtempSync(path.join(tmpdir(), 'mcpkit-install-'));
try {
  for (const name of wanted) {
    const { folder } = manifests.get(name);
    if (!readdirSync(folder).includes('dist'))
      throw new Error(`${name} is not built (no ${folder}/dist): run "pnpm build" first`);
    execFileSync('pnpm', ['pack', '--pack-destination', packs], { cwd: folder, stdio: 'ignore' });
  }
  const tarballs = readdirSync(packs).map((f) => path.join(packs, f));
  // Each tarball becomes a global package of its own, and npm gives each the peers it asks
  // for in its own folder: @mcpkit/otel would get the newest @opentelemetry/api (1.10),
  // whose registry does not see the SDK the CLI registers with its pinned API (1.9), and
  // OTLP export would send nothing. So no automatic peers (the CLI's one optional peer is
  // among the tarballs), and the CLI's API beside the packages, where they all find it.
  const api = manifests.get('mcpkit').manifest.dependencies['@opentelemetry/api'];
  console.log(`installing ${tarballs.length} packages with npm install -g …`);
  try {
    execFileSync(
      'npm',
      [
        'install',
        '--global',
        '--no-audit',
        '--no-fund',
        '--legacy-peer-deps',
        ...process.argv.slice(2),
        ...tarballs,
        `@opentelemetry/api@${api}`,
      ],
      { stdio: 'inherit' },
    );
  } catch {
    console.error(
      'npm install -g failed. When the global prefix is not yours to write (EACCES), give npm ' +
        'one you own, then run this again:\n  npm config set prefix ~/.local   # mcpkit goes to ~/.local/bin',
    );
    process.exitCode = 1;
  }
  if (!process.exitCode) {
    const prefix = execFileSync('npm', ['prefix', '--global', ...process.argv.slice(2)], {
      encoding: 'utf8',
    }).trim();
    const bin = process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
    const version = manifests.get('mcpkit').manifest.version;
    console.log(
      `mcpkit ${version} is in ${bin}${onPath(bin) ? '' : ` (not on your PATH: add it)`}`,
    );
  }
} finally {
  rmSync(packs, { recursive: true, force: true });
}

function onPath(dir) {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => path.resolve(d) === dir);
}
