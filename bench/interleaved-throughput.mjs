// Two or more clients in one process, each against its own echo server, in interleaved
// blocks (the starting client rotates each round), after a warm-up of each: the median CPU
// per call and throughput of each, and the median of each round's ratio to the first
// client. The machine's drift hits every client alike. 64 in flight by default;
// `--sequential` runs each block one call at a time instead (its warm-up is 3,000 calls).
// `http-*` clients get the HTTP echo server (see open-client.mjs).
// Usage: node interleaved-throughput.mjs [floor,mcpkit] [rounds=12] [callsPerBlock=10000] [--sequential]
import { callEcho, openClient } from './open-client.mjs';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sequential = process.argv.includes('--sequential');
const names = (args[0] ?? 'floor,mcpkit').split(',');
const rounds = Number(args[1] ?? 12);
const block = Number(args[2] ?? 10000);
const inFlight = sequential ? 1 : 64;
const clients = [];
for (const n of names) clients.push(await openClient(n));
const run = (c, total) => callEcho(c, total, inFlight);
for (const c of clients) await run(c, sequential ? 3000 : 20000);
const res = names.map(() => ({ cpu: [], tput: [] }));
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < clients.length; k++) {
    const j = (k + r) % clients.length;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run(clients[j], block);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    res[j].cpu.push((c.user + c.system) / block);
    res[j].tput.push((block / ms) * 1000);
  }
}
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
};
for (let j = 0; j < names.length; j++) {
  const cr = res[j].cpu.map((v, i) => v / res[0].cpu[i]);
  const tr = res[j].tput.map((v, i) => v / res[0].tput[i]);
  console.log(
    `${names[j]}: cpu ${med(res[j].cpu).toFixed(2)} µs, ${med(res[j].tput).toFixed(0)}/s; vs ${names[0]}: cpu ${med(cr).toFixed(3)}× tput ${med(tr).toFixed(3)}×`,
  );
}
for (const c of clients) await c.close();
