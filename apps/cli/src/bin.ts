import { main } from './main.js';
import { Shutdown } from './signals.js';
import { neutralizeBlock } from './terminal.js';

// Installed before anything starts: a Ctrl-C at any point closes what was opened.
const shutdown = new Shutdown({
  log: (line) => process.stderr.write(`${neutralizeBlock(line)}\n`),
});
shutdown.install();
const code = await main(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
  undefined,
  { shutdown, stdoutIsTTY: process.stdout.isTTY === true },
);
process.exitCode = code;
