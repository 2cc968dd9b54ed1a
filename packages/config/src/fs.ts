import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file operations config needs; tests and hosts may supply their own. */
export interface ConfigFs {
  /** The file's text, or `undefined` when it does not exist. */
  readText(file: string): Promise<string | undefined>;
  /** Replaces the file atomically (temporary file, then rename), creating folders. */
  writeTextAtomic(file: string, text: string, options?: { mode?: number }): Promise<void>;
}

export const nodeFs: ConfigFs = {
  async readText(file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  },
  async writeTextAtomic(file, text, options) {
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await writeFile(temp, text, { mode: options?.mode ?? 0o644 });
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  },
};
