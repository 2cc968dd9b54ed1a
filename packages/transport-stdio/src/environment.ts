/**
 * What a server process inherits. By default only variables a program needs to run
 * (paths, user, locale, terminal) pass through, so secrets in the host's environment
 * are not handed to every server; `env` from the config is merged on top.
 */

const POSIX_SAFE = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TZ',
];
const WINDOWS_SAFE = [
  'APPDATA',
  'COMSPEC',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
];

export type InheritEnv = 'safe' | 'all' | 'none';

export function inheritedEnvironment(
  mode: InheritEnv,
  source: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Record<string, string> {
  const result: Record<string, string> = {};
  if (mode === 'none') return result;
  if (mode === 'all') {
    for (const [key, value] of Object.entries(source)) if (value !== undefined) result[key] = value;
    return result;
  }
  const names = platform === 'win32' ? WINDOWS_SAFE : POSIX_SAFE;
  const lookup = platform === 'win32' ? caseInsensitive(source) : source;
  for (const name of names) {
    const value = lookup[name];
    // Values that start with "()" are exported shell functions: never pass them on.
    if (value !== undefined && !value.startsWith('()')) result[name] = value;
  }
  return result;
}

function caseInsensitive(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(source)) out[key.toUpperCase()] = value;
  return out;
}
