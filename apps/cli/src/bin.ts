import { main } from './main.js';
import { telemetryWanted } from './telemetry-wanted.js';

// OpenTelemetry loads only when an OTEL_* variable asks for it (nothing of it otherwise).
const otel = telemetryWanted(process.env)
  ? (await import('./telemetry.js')).startTelemetry(process.env)
  : undefined;

const code = await main(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
  undefined,
  {
    // Installed before any server starts (and not loaded at all for --version or --help):
    // a Ctrl-C at any point closes what was opened.
    shutdown: async () => {
      const [{ Shutdown }, { neutralizeBlock }] = await Promise.all([
        import('./core/signals.js'),
        import('./terminal/neutralize.js'),
      ]);
      const shutdown = new Shutdown({
        // On a terminal the line first erases a call's progress line, if one is drawn.
        log: (line) =>
          process.stderr.write(
            `${process.stderr.isTTY ? '\r\x1b[2K' : ''}${neutralizeBlock(line)}\n`,
          ),
        // The spans of an interrupted run still leave before the exit.
        ...(otel ? { exit: (c: number) => void otel().finally(() => process.exit(c)) } : {}),
      });
      shutdown.install();
      return shutdown;
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    ...(process.stdout.isTTY && process.stdout.columns > 0
      ? { columns: process.stdout.columns }
      : {}),
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    ...(process.stdout.isTTY && process.stderr.isTTY ? { progressStream: process.stderr } : {}),
  },
);
process.exitCode = code;
await otel?.();
