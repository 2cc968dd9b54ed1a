import { writeSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { VERSION } from './core/version.js';
import { telemetryWanted } from './telemetry-wanted.js';

// The CLI's entry (package.json "bin", built as dist/bin.cjs): CommonJS, so that Node starts
// it without its ES module loader, which costs about a fifth of an empty Node's start-up on
// its own (issue #21). `mcpkit --version` is answered here, `mcpkit [--json] list` runs from
// dist/list.cjs (src/list-fast.ts); every other command loads the ES module entry
// (dist/bin.js).

// Node ≥ 22.1: V8's compile cache for the CLI's modules (in the OS temp folder; Node's own
// NODE_DISABLE_COMPILE_CACHE turns it off), enabled before the rest loads so that those
// modules are read from it after the first run. Node 20 has no such call.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === '--version') printVersion();
else if (plainList(argv) && !telemetryWanted(process.env)) {
  // dist/list.cjs, built beside this file from src/list-fast.ts (no source file has its name).
  const { runList } = require(path.join(__dirname, 'list.cjs')) as typeof import('./list-fast.js');
  void runList(argv.length === 2).then((code) => {
    process.exitCode = code;
  });
} else void import('./bin.js');

/** `list` or `--json list` (`list --json`), nothing else: any other word is main's to parse. */
function plainList(words: readonly string[]): boolean {
  return (
    (words.length === 1 && words[0] === 'list') ||
    (words.length === 2 && words.includes('list') && words.includes('--json'))
  );
}

/**
 * Written to fd 1 directly: making `process.stdout` (a stream over the pipe or terminal)
 * costs a tenth of an empty Node's start-up. A descriptor left non-blocking by whoever
 * opened it can refuse the write (EAGAIN); the stream, which waits, writes it then.
 */
function printVersion(): void {
  const line = Buffer.from(`${VERSION}\n`);
  let written = 0;
  try {
    written = writeSync(1, line);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
  }
  if (written < line.length) process.stdout.write(line.subarray(written));
}
