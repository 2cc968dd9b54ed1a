// The echo server, after appending one line to the file named by BENCH_SPAWN_LOG: every
// process start leaves a line, so a bench can count spawns without watching /proc.
import { appendFileSync } from 'node:fs';

const log = process.env.BENCH_SPAWN_LOG;
if (log) appendFileSync(log, `${process.pid}\n`);
await import('../servers/echo-server.mjs');
