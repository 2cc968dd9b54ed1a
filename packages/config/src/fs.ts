import { constants } from 'node:fs';
import { chmod, type FileHandle, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc/errors';
import { ConfigErrorCode } from './errors.js';

/** The file operations config needs; tests and hosts may supply their own. */
export interface ConfigFs {
  /**
   * The file's text, or `undefined` when it does not exist. Throws a `ConfigReadError` when
   * it exists but is not a regular file, is too large or cannot be read.
   */
  readText(file: string): Promise<string | undefined>;
  /**
   * Replaces the file atomically (temporary file, then rename), creating folders. `mode`:
   * the file's mode; without it an existing file keeps its own (0644 for a new one).
   * `dirMode`: the mode of the folders it creates.
   */
  writeTextAtomic(
    file: string,
    text: string,
    options?: { mode?: number; dirMode?: number },
  ): Promise<void>;
}

/** No config file is read past this size (10 MiB): a real one is a few kilobytes. */
export const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

/** The read codes of `ConfigErrorCode`, by their old keys. */
export const CONFIG_READ_ERROR_CODES = {
  /** A FIFO, a device (`/dev/stdin`, `/dev/zero`), a socket or a folder. */
  notAFile: ConfigErrorCode.NotAFile,
  tooLarge: ConfigErrorCode.TooLarge,
  /** Permissions, a symlink loop, an I/O error. */
  unreadable: ConfigErrorCode.Unreadable,
} as const;
export type ConfigReadErrorCode =
  (typeof CONFIG_READ_ERROR_CODES)[keyof typeof CONFIG_READ_ERROR_CODES];

/** A config file that exists but cannot be used; the message names the file and the fix. */
export class ConfigReadError extends McpkitError {
  static readonly brand: string = '@mcpkit/config.ConfigReadError';
  override readonly name: string = 'ConfigReadError';
  declare readonly code: ConfigReadErrorCode;
  constructor(
    code: ConfigReadErrorCode,
    readonly file: string,
    /** The message without the file name: `is a FIFO, not a regular file; …`. */
    readonly problem: string,
    options?: McpkitErrorOptions,
  ) {
    super(code, `${file} ${problem}`, options);
  }
}

/** What to say about a read failure where the file is already named (a diagnostic). */
export const readProblem = (error: unknown): string =>
  error instanceof ConfigReadError ? error.problem : (error as Error).message;

function kindOf(stats: import('node:fs').Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const tooLarge = (file: string, limit: number) =>
  new ConfigReadError(
    CONFIG_READ_ERROR_CODES.tooLarge,
    file,
    `is larger than ${limit} bytes, the limit for a config file; it was not read: replace it with a real config file`,
  );

/**
 * Reads a config file safely: only a regular file (a symlink is followed, but what it
 * points at must be a regular file too), never more than `limit + 1` bytes.
 */
export async function readConfigFile(
  file: string,
  limit = MAX_CONFIG_FILE_BYTES,
): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    // O_NOCTTY: a terminal device must never become our controlling terminal.
    handle = await open(
      file,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    // EISDIR: a folder; ENXIO/ENODEV: a socket or a device (say, /dev/stdin of a process
    // whose stdin is a socket) that cannot even be opened.
    if (code === 'EISDIR' || code === 'ENXIO' || code === 'ENODEV')
      throw new ConfigReadError(
        CONFIG_READ_ERROR_CODES.notAFile,
        file,
        `is ${code === 'EISDIR' ? 'a folder' : 'a socket or device'}, not a regular file; it was not read: replace it with a regular file or remove it`,
        { cause: error },
      );
    throw new ConfigReadError(
      CONFIG_READ_ERROR_CODES.unreadable,
      file,
      `cannot be read (${code ?? (error as Error).message}): fix its permissions or remove it`,
      { cause: error },
    );
  }
  try {
    // Checked on the open handle, not the path: the file cannot be swapped in between.
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new ConfigReadError(
        CONFIG_READ_ERROR_CODES.notAFile,
        file,
        `is ${kindOf(stats)}, not a regular file; it was not read: replace it with a regular file or remove it`,
      );
    }
    if (stats.size > limit) throw tooLarge(file, limit);
    // The size can change while reading (or be wrong, as in /proc): the bound is the read.
    const buffer = Buffer.alloc(Math.min(limit + 1, Math.max(stats.size + 1, 64 * 1024)));
    let chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(buffer.length, limit + 1 - total);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
      total += bytesRead;
    }
    if (total > limit) throw tooLarge(file, limit);
    const bytes = Buffer.concat(chunks, total);
    chunks = [];
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof ConfigReadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigReadError(
      CONFIG_READ_ERROR_CODES.unreadable,
      file,
      `cannot be read (${code ?? (error as Error).message}): fix it or remove it`,
      { cause: error },
    );
  } finally {
    await handle.close();
  }
}

export const nodeFs: ConfigFs = {
  readText: (file) => readConfigFile(file),
  async writeTextAtomic(file, text, options) {
    await mkdir(path.dirname(file), {
      recursive: true,
      ...(options?.dirMode !== undefined ? { mode: options.dirMode } : {}),
    });
    // An existing file keeps its mode unless one is given (a file made private stays so).
    const mode =
      options?.mode ??
      (await stat(file).then(
        (s) => s.mode & 0o777,
        () => 0o644,
      ));
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      // Created private, then given its mode (exactly: the umask does not apply to chmod).
      await writeFile(temp, text, { mode: 0o600 });
      await chmod(temp, mode);
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  },
};
