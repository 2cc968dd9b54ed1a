// The browser tests drive Debian's Chromium. This installs it when it is missing (as
// root, with apt-get), so that `pnpm test` needs nothing installed by hand. Elsewhere it
// says what to do, and the browser tests fail with the same message.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.MCPKIT_CHROMIUM ?? '/usr/bin/chromium';
if (existsSync(chromium)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(
    `ensure-chromium: ${chromium} is missing and cannot be installed here (needs root and apt-get); install Debian's "chromium" package or set MCPKIT_CHROMIUM to a Chromium binary`,
  );
  process.exit(0);
}
console.error("ensure-chromium: installing Debian's chromium for the browser tests…");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
  stdio: 'inherit',
  env,
});
if (!existsSync(chromium)) {
  console.error(`ensure-chromium: apt-get finished, but ${chromium} is still missing`);
  process.exit(1);
}
