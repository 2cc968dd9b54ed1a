import path from 'node:path';

export interface PathContext {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
}

function pathFor(platform: NodeJS.Platform) {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Our folder under the user's config directory: `$XDG_CONFIG_HOME/mcpkit` (`%APPDATA%\mcpkit` on Windows). */
export function userConfigDir({ home, env, platform }: PathContext): string {
  const p = pathFor(platform);
  if (platform === 'win32')
    return p.join(env.APPDATA ?? p.join(home, 'AppData', 'Roaming'), 'mcpkit');
  return p.join(env.XDG_CONFIG_HOME || p.join(home, '.config'), 'mcpkit');
}

/** The folder of administrator-managed files. */
export function managedConfigDir({ env, platform }: PathContext): string {
  if (platform === 'win32')
    return path.win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'mcpkit');
  if (platform === 'darwin') return '/Library/Application Support/mcpkit';
  return '/etc/mcpkit';
}

/** Every file location, for one platform. */
export function configPaths(ctx: PathContext) {
  const p = pathFor(ctx.platform);
  const user = userConfigDir(ctx);
  const managed = managedConfigDir(ctx);
  return {
    /** User scope servers (`mcpServers`). */
    userServers: p.join(user, 'mcp.json'),
    /** User settings: `allowedMcpServers`, `deniedMcpServers`. */
    userSettings: p.join(user, 'settings.json'),
    /** Private per-project state: local-scope servers and project approvals, keyed by project folder. */
    localState: p.join(user, 'projects.json'),
    /** Managed servers: when this file exists, only its servers are used. */
    managedServers: p.join(managed, 'managed-mcp.json'),
    /** Managed settings: policy that overrides the user's. */
    managedSettings: p.join(managed, 'managed-settings.json'),
  };
}

/** `.mcp.json` candidates from `cwd` up to the root, closest first, with their depth. */
export function projectFileCandidates(
  cwd: string,
  platform: NodeJS.Platform,
): Array<{ file: string; depth: number }> {
  const p = pathFor(platform);
  const out: Array<{ file: string; depth: number }> = [];
  let dir = p.resolve(cwd);
  for (let depth = 0; ; depth++) {
    out.push({ file: p.join(dir, '.mcp.json'), depth });
    const parent = p.dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}
