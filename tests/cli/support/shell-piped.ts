import { spawn } from 'node:child_process';
import { bin, type CliRun } from '../../hostile/cli-harness.js';

/**
 * `mcpkit <args>` (a `shell`) with `input` written to its stdin and the stdin then ended at
 * once, as `printf '…' | mcpkit shell` does; settles when the CLI has exited.
 */
export function runShellPiped(
  args: string[],
  input: string,
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<CliRun> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    stdout += t;
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  child.stdin.end(input);
  return done;
}
