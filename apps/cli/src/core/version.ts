// Bundled into dist at build: no file is read at run time.
import packageJson from '../../package.json' with { type: 'json' };

/** The CLI's version: its package.json's, the one place it is written. */
export const VERSION: string = packageJson.version;
