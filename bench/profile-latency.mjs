// Where a sequential call's time goes: runs one client's sequential calls against the echo
// server with the V8 profiler on (only around the measured calls, after warm-up), then
// prints per-call self and inclusive time of the hottest functions, the process's CPU per
// call, and each thread's CPU per call (Linux: /proc/self/task).
// `http-*` clients get the HTTP echo server (open-client.mjs).
// Usage: node profile-latency.mjs <client> [calls=5000] [samplingIntervalUs=20] [out.cpuprofile]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { openClient } from './open-client.mjs';

const [name = 'mcpkit', callsArg = '5000', intervalArg = '20', outArg] = process.argv.slice(2);
const c = await openClient(name);
for (let i = 0; i < 3000; i++) await c.call({ text: `w${i}` });

// Per-thread CPU in ms (clock ticks of 10 ms): which thread pays.
function threads() {
  const out = new Map();
  try {
    for (const t of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(t, (Number(f[11]) + Number(f[12])) * 10);
    }
  } catch {
    // Not Linux: no per-thread figures.
  }
  return out;
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(intervalArg) });
const n = Number(callsArg);
const threads0 = threads();
await session.post('Profiler.start');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) await c.call({ text: `hello ${i}` });
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const { profile } = await session.post('Profiler.stop');
if (outArg) writeFileSync(outArg, JSON.stringify(profile));
const threads1 = threads();
await c.close();

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
const label = (node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber}`;
const self = new Map();
const inclusive = new Map();
let busyUs = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const node = byId.get(profile.samples[i]);
  const key = label(node);
  if (key.startsWith('(idle)')) continue;
  busyUs += dt;
  self.set(key, (self.get(key) ?? 0) + dt);
  const seen = new Set();
  for (let id = node.id; id !== undefined; id = parent.get(id)) {
    const k = label(byId.get(id));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
}
const top = (map, count) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, us]) => `${(us / n).toFixed(2).padStart(8)} µs  ${k}`)
    .join('\n');
const perThread = [...threads1]
  .map(([t, ms]) => [t, ((ms - (threads0.get(t) ?? 0)) * 1000) / n])
  .filter(([, us]) => us > 0)
  .map(([t, us]) => `${t}: ${us.toFixed(1)} µs`)
  .join(', ');
process.stdout.write(
  `${name}: ${n} calls, wall ${((wallMs * 1000) / n).toFixed(1)} µs/call (mean), CPU ${((cpu.user + cpu.system) / n).toFixed(1)} µs/call (user ${(cpu.user / n).toFixed(1)}, sys ${(cpu.system / n).toFixed(1)}), JavaScript thread busy ${(busyUs / n).toFixed(1)} µs/call (profiler on)\nper thread (first is the main thread): ${perThread || 'n/a'}\n\nself time per call:\n${top(self, 25)}\n\ninclusive time per call:\n${top(inclusive, 40)}\n`,
);
process.exit(0);
