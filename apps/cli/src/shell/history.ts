import { chmod, mkdir, open, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliContext } from '../core/server-selection.js';

export const shellHistoryDefaults = Object.freeze({
  /** Lines kept (the oldest go first). */
  maxLines: 1000,
  /** What is read of an existing file, at most: a file grown by other means is cut. */
  maxReadBytes: 256 * 1024,
  /** A line longer than this (a big JSON argument) is not kept. */
  maxLineChars: 4096,
});

/** `$XDG_STATE_HOME/mcpkit/shell_history`, else `~/.local/state/mcpkit/shell_history`. */
export function shellHistoryFile(ctx: CliContext): string {
  const state = ctx.env.XDG_STATE_HOME;
  const base = state && path.isAbsolute(state) ? state : path.join(ctx.home, '.local', 'state');
  return path.join(base, 'mcpkit', 'shell_history');
}

/**
 * The shell's history, one line per entry, oldest first in the file, 0600 in a 0700
 * folder. Lines are scrubbed of the enabled entries' credentials before they are kept (a
 * `call` may carry a key the config also holds): the user's typing, never a server's text.
 */
export class ShellHistory {
  private lines: string[] = [];

  constructor(
    readonly file: string,
    private readonly scrub: (line: string) => string = (line) => line,
  ) {}

  /** Reads what a previous session kept; a missing or unreadable file is an empty history. */
  async load(): Promise<void> {
    let text = '';
    try {
      const handle = await open(this.file, 'r');
      try {
        const { size } = await handle.stat();
        const length = Math.min(size, shellHistoryDefaults.maxReadBytes);
        const buffer = Buffer.alloc(length);
        await handle.read(buffer, 0, length, size - length);
        text = buffer.toString('utf8');
        // Cut at a line start when only the end of the file was read.
        if (size > length) text = text.slice(text.indexOf('\n') + 1);
      } finally {
        await handle.close();
      }
    } catch {
      return;
    }
    this.lines = text
      .split('\n')
      .filter((l) => l.trim() !== '' && l.length <= shellHistoryDefaults.maxLineChars)
      .slice(-shellHistoryDefaults.maxLines);
  }

  /** Newest first, as node:readline's `history` option wants it. */
  get newestFirst(): string[] {
    return [...this.lines].reverse();
  }

  /** Keeps a line and writes the file (atomically: a crash never leaves half a file). */
  async add(line: string): Promise<void> {
    const text = this.scrub(line.trim());
    if (text === '' || text.length > shellHistoryDefaults.maxLineChars) return;
    if (this.lines.at(-1) !== text) this.lines.push(text);
    this.lines = this.lines.slice(-shellHistoryDefaults.maxLines);
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, `${this.lines.join('\n')}\n`, { mode: 0o600 });
    // A file that existed before with wider rights keeps them through rename: set them.
    await chmod(temp, 0o600);
    await rename(temp, this.file);
  }
}
