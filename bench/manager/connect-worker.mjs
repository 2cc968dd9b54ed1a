// One connect-all run in this fresh process; prints one JSON line.
// Usage: node connect-worker.mjs <floor|sdk-v1|manager> <count> <concurrency>
import { echoServer } from './servers.mjs';

const [impl, countArg, concurrencyArg] = process.argv.slice(2);
const count = Number(countArg);
const concurrency = Number(concurrencyArg);
const { connectAll } = await import(`./connect-${impl}.mjs`);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const all = await connectAll({ command: process.execPath, args: [echoServer], count, concurrency });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (all.connected !== count) throw new Error(`${impl}: ${all.connected} of ${count} connected`);
await all.close();
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
process.exit(0);
