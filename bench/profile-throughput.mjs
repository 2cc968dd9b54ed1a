// Where a 64-in-flight call's CPU goes: runs one client's in-flight calls against the echo
// server with the V8 profiler on only around the measured calls (after an in-flight
// warm-up), then writes the profile and prints the top self-time items and CPU per call.
// `http-*` clients get the HTTP echo server (open-client.mjs).
// Usage: node profile-throughput.mjs <client> [calls=40000] [out.cpuprofile]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { callEcho, openClient } from './open-client.mjs';

const [name = 'mcpkit', callsArg = '40000', out] = process.argv.slice(2);
const c = await openClient(name);
const run = (total) => callEcho(c, total);
await run(20000);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });
const n = Number(callsArg);
await session.post('Profiler.start');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await run(n);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const { profile } = await session.post('Profiler.stop');
await c.close();
if (out) writeFileSync(out, JSON.stringify(profile));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const dt = profile.timeDeltas;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const f = node.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
console.log(
  `${name}: ${((n / ms) * 1000).toFixed(0)} calls/s, CPU ${((cpu.user + cpu.system) / n).toFixed(2)} µs/call (user ${(cpu.user / n).toFixed(2)}, sys ${(cpu.system / n).toFixed(2)})`,
);
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
for (const [key, us] of rows) console.log(`${(us / n).toFixed(3).padStart(7)} µs/call  ${key}`);
