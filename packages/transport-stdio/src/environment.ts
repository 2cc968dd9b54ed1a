/**
 * What a server process inherits. By default only variables a program needs to run
 * (paths, user, locale, terminal) and to reach the network the way the host does (the
 * certificates it trusts, its proxy, its package registry) pass through, so secrets in the
 * host's environment are not handed to every server; `env` from the config is merged on top.
 */

/**
 * Trust and proxy settings: without them a server started by `npx`/`uvx` behind a
 * TLS-intercepting proxy fails (SELF_SIGNED_CERT_IN_CHAIN) where the host itself works.
 * Upper- and lower-case spellings, as programs read either.
 */
export const NETWORK_VARIABLES: readonly string[] = [
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'PIP_CERT',
  ...['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'ALL_PROXY'].flatMap((n) => [n, n.toLowerCase()]),
  ...['REGISTRY', 'CAFILE', 'PROXY', 'HTTPS_PROXY', 'NOPROXY'].flatMap((n) => [
    `NPM_CONFIG_${n}`,
    `npm_config_${n.toLowerCase()}`,
  ]),
];

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
  ...NETWORK_VARIABLES,
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
  // Windows names are case-insensitive: one spelling each.
  ...new Set(NETWORK_VARIABLES.map((n) => n.toUpperCase())),
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
