// Shared by ensure-redis.mjs, ensure-haproxy.mjs and bench/gateway/instructions.mjs
// (valgrind): make a Debian binary present (as root, with apt-get) so that the scale-out
// tests and the benchmarks need nothing installed by hand. Quiet when the
// binary is there; elsewhere it says what to do and the tests fail with the same message.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * @param {{ name: string, binary: string, debianPackage: string, envVar: string, purpose?: string }} spec
 * @returns {string | undefined} the binary's path when it is present after the call
 */
export function ensureDebianBinary({
  name,
  binary,
  debianPackage,
  envVar,
  purpose = 'the scale-out tests',
}) {
  const path = process.env[envVar] ?? binary;
  if (existsSync(path)) return path;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.error(
      `${name}: ${path} is missing and cannot be installed here (needs root and apt-get); install Debian's "${debianPackage}" package or set ${envVar} to the binary`,
    );
    return undefined;
  }
  console.error(`${name}: installing Debian's ${debianPackage} for ${purpose}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    execFileSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
  try {
    apt(['install', '-y', '-qq', '--no-install-recommends', debianPackage]);
  } catch {
    // The package lists may be missing or stale on a fresh machine.
    apt(['update', '-qq']);
    apt(['install', '-y', '-qq', '--no-install-recommends', debianPackage]);
  }
  if (!existsSync(path)) {
    console.error(`${name}: apt-get finished, but ${path} is still missing`);
    return undefined;
  }
  return path;
}
