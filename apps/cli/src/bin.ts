import { otlpProtocols, telemetryWanted } from './telemetry-wanted.js';

// The CLI's ES module entry, loaded by dist/bin.cjs (src/launcher.ts), which answers
// `mcpkit --version` alone before anything else loads.
await start();

async function start(): Promise<void> {
  // OpenTelemetry loads only when an OTEL_* variable asks for it (nothing of it otherwise).
  const wanted = telemetryWanted(process.env);
  const protocols = wanted ? otlpProtocols(process.env) : undefined;
  if (protocols !== undefined && 'refused' in protocols) {
    // Asked for an export the CLI cannot make: said, not silently dropped.
    process.stderr.write(
      `mcpkit: ${protocols.refused} is not supported: mcpkit exports OTLP over HTTP only; set it to http/protobuf (the default) or http/json, or unset it\n`,
    );
    process.exitCode = 2;
    return;
  }
  const { main } = await import('./main.js');
  const otel =
    protocols !== undefined
      ? (await import('./telemetry.js')).startTelemetry(process.env, protocols)
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
}
