import { homedir } from 'node:os';
import { listCommand } from './commands/config.js';
import { errorText } from './core/gate.js';
import type { Io } from './core/io.js';
import { Output } from './terminal/output.js';

/**
 * `mcpkit list` and `mcpkit --json list` with no other word, as `main` runs them (the same
 * command, output and error text), built on its own as a CommonJS file (dist/list.cjs) that
 * the launcher requires instead of loading the ES module entry, the command table and
 * their chunks: the command is a reader of config files, and Node's module machinery was
 * most of its start-up (issue #21). `@mcpkit/config` and the `@mcpkit/jsonrpc` errors are
 * bundled into that file (tsup.config.ts): one file to resolve and compile instead of a
 * package's chunks. That copy never shares a process with the ES module build, so there is
 * still one copy of each error class per process.
 */
export async function runList(json: boolean): Promise<number> {
  const io: Io = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
  const out = new Output(io, {
    stdoutIsTTY: process.stdout.isTTY === true,
    sanitize: false,
    showSecrets: false,
  });
  try {
    return await listCommand(
      out,
      { cwd: process.cwd(), home: homedir(), env: process.env },
      { config: undefined, strict: false },
      { json, showSecrets: false },
    );
  } catch (error) {
    out.stderr(`mcpkit: ${errorText(error)}\n`);
    return 1;
  }
}
