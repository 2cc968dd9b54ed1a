// Where a 64-in-flight stdio run waits: per call, the read and write syscalls of the client
// and of its echo server (`/proc/<pid>/io` syscr/syscw, which cost nothing to read, unlike
// strace), both processes' CPU (`schedstat`, all threads), the client's voluntary context
// switches (each one a wait for the server) and its throughput. Clients run in one process,
// each against its own echo server, in rotating blocks; medians of the blocks.
// Usage: node bench/stdio-syscalls.mjs [floor,mcpkit] [rounds=8] [callsPerBlock=20000]
import { readdirSync, readFileSync } from 'node:fs';
import { cpuNs } from './gateway/setups.mjs';
import { callEcho, openClient } from './open-client.mjs';

const [namesArg = 'floor,mcpkit', roundsArg = '8', blockArg = '20000'] = process.argv.slice(2);
const names = namesArg.split(',');
const rounds = Number(roundsArg);
const block = Number(blockArg);

const children = () => {
  const pids = new Set();
  for (const tid of readdirSync(`/proc/${process.pid}/task`))
    for (const p of readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'latin1').split(' '))
      if (p) pids.add(p);
  return pids;
};
const io = (pid) => {
  const text = readFileSync(`/proc/${pid}/io`, 'latin1');
  return {
    reads: Number(/syscr: (\d+)/.exec(text)[1]),
    writes: Number(/syscw: (\d+)/.exec(text)[1]),
  };
};

const clients = [];
for (const name of names) {
  const before = children();
  const c = await openClient(name);
  const server = [...children()].find((p) => !before.has(p));
  clients.push({ name, c, server });
}

for (const { c } of clients) await callEcho(c, 20000);
const rows = clients.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < clients.length; k++) {
    const j = (k + r) % clients.length;
    const { c, server } = clients[j];
    const self0 = io('self');
    const srv0 = io(server);
    const cpu0 = cpuNs(process.pid);
    const srvCpu0 = cpuNs(server);
    const vcs0 = process.resourceUsage().voluntaryContextSwitches;
    const t0 = performance.now();
    await callEcho(c, block);
    const ms = performance.now() - t0;
    const self1 = io('self');
    const srv1 = io(server);
    rows[j].push({
      callsPerSec: (block / ms) * 1000,
      clientReads: (self1.reads - self0.reads) / block,
      clientWrites: (self1.writes - self0.writes) / block,
      serverReads: (srv1.reads - srv0.reads) / block,
      serverWrites: (srv1.writes - srv0.writes) / block,
      clientCpuUs: (cpuNs(process.pid) - cpu0) / 1e3 / block,
      serverCpuUs: (cpuNs(server) - srvCpu0) / 1e3 / block,
      clientWaits: (process.resourceUsage().voluntaryContextSwitches - vcs0) / block,
    });
  }
}
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
};
const keys = Object.keys(rows[0][0]);
console.log(`per call, medians of ${rounds} blocks of ${block}: ${keys.join(', ')}`);
for (let j = 0; j < clients.length; j++) {
  const cells = keys.map((k) => {
    const v = med(rows[j].map((row) => row[k]));
    return k === 'callsPerSec' ? v.toFixed(0) : v.toFixed(3);
  });
  console.log(`${names[j]}: ${cells.join(', ')}`);
}
for (const { c } of clients) await c.close();
