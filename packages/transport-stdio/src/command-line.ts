import { existsSync } from 'node:fs';
import path from 'node:path';

export interface ResolvedCommand {
  command: string;
  args: string[];
  /** Windows: arguments are already quoted for cmd.exe. */
  windowsVerbatimArguments?: boolean;
}

/** Quotes one argument for a POSIX shell. */
export function quotePosix(arg: string): string {
  if (arg.length > 0 && /^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Quotes one argument for cmd.exe /s /c. */
export function quoteWindows(arg: string): string {
  if (arg.length > 0 && !/[\s"&|<>^%!()]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/**
 * The shell prefix hands the whole command line, as one argument, to a prefix command
 * (a sandbox or wrapper): `prefix "<command> <args…>"`.
 */
export function applyShellPrefix(
  prefix: string,
  command: string,
  args: readonly string[],
): ResolvedCommand {
  return { command: prefix, args: [[command, ...args].map(quotePosix).join(' ')] };
}

/**
 * Windows cannot spawn `.cmd`/`.bat` shims (npx, most npm bins) directly: find the
 * command on PATH with PATHEXT and run shims through cmd.exe. Elsewhere, unchanged.
 */
export function resolveCommand(
  command: string,
  args: readonly string[],
  options: {
    platform: NodeJS.Platform;
    env: Record<string, string | undefined>;
    cwd?: string;
    exists?: (file: string) => boolean;
  },
): ResolvedCommand {
  if (options.platform !== 'win32') return { command, args: [...args] };
  const exists = options.exists ?? existsSync;
  const win = path.win32;
  const env = Object.fromEntries(Object.entries(options.env).map(([k, v]) => [k.toUpperCase(), v]));
  const exts = (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  const hasDir = /[\\/]/.test(command);
  const dirs = hasDir ? [''] : [options.cwd ?? '', ...(env.PATH ?? '').split(';').filter(Boolean)];
  const hasExt = exts.some((ext) => command.toLowerCase().endsWith(ext.toLowerCase()));
  let resolved: string | undefined;
  outer: for (const dir of dirs) {
    const base = dir ? win.join(dir, command) : command;
    for (const candidate of hasExt ? [base] : exts.map((ext) => base + ext)) {
      if (exists(candidate)) {
        resolved = candidate;
        break outer;
      }
    }
  }
  const target = resolved ?? command;
  if (/\.(cmd|bat)$/i.test(target)) {
    const line = [target, ...args].map(quoteWindows).join(' ');
    return {
      command: env.COMSPEC ?? 'cmd.exe',
      args: ['/d', '/s', '/c', `"${line}"`],
      windowsVerbatimArguments: true,
    };
  }
  return { command: target, args: [...args] };
}
