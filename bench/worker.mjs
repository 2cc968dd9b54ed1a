// Runs one scenario for one client in this (fresh) process and prints one JSON line.
// Usage: node worker.mjs <client> <scenario> <server> [bytes] [liftCap]
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [clientName, scenario, serverName, bytesArg, liftCapArg] = process.argv.slice(2);
const servers = {
  echo: path.join(here, 'servers/echo-server.mjs'),
  sdk: path.join(here, 'servers/sdk-server.mjs'),
};
const { open: openClient } = await import(`./clients/${clientName}.mjs`);
const serverArgs = [servers[serverName]];
const options = { liftCap: liftCapArg === 'liftCap' };

// Listener leaks show up as MaxListenersExceededWarning: count them.
let listenerWarnings = 0;
process.on('warning', (w) => {
  if (w.name === 'MaxListenersExceededWarning') listenerWarnings++;
});

// For HTTP clients, the server runs in its own process and `open` gets its URL.
let httpServer;
let httpUrl;
if (serverName === 'http') {
  const { spawn } = await import('node:child_process');
  httpServer = spawn(process.execPath, [path.join(here, 'servers/http-echo-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  httpUrl = await new Promise((resolve) => {
    httpServer.stdout.on('data', (c) => {
      const m = /PORT (\d+)/.exec(c.toString());
      if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
    });
  });
}
const open = (command, args, opts) =>
  httpUrl ? openClient(httpUrl) : openClient(command, args, opts);

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const now = () => performance.now();
const LATENCY_WARMUP_CALLS = Number(process.env.BENCH_WARMUP_CALLS ?? 3000);
const THROUGHPUT_WARMUP_CALLS = Number(process.env.BENCH_THROUGHPUT_WARMUP_CALLS ?? 10000);
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const text = (result) => result.content[0].text;

async function latency() {
  const c = await open(process.execPath, serverArgs, options);
  // 3000 warm-up calls: after 300, V8 is still compiling the hot path (on background
  // threads, counted in the process's CPU time) and the figures measured warm-up, not the
  // per-call cost; by 3000 they have settled (10 000 gives the same).
  for (let i = 0; i < LATENCY_WARMUP_CALLS; i++) await c.call({ text: `w${i}` });
  const n = 3000;
  const times = new Array(n);
  const split0 = process.cpuUsage();
  const cpu0 = cpu();
  for (let i = 0; i < n; i++) {
    const t = now();
    const r = await c.call({ text: `hello ${i}` });
    times[i] = now() - t;
    if (text(r) !== `hello ${i}`) throw new Error('wrong answer');
  }
  const cpuUs = cpu() - cpu0;
  const split = process.cpuUsage(split0);
  await c.close();
  times.sort((a, b) => a - b);
  return {
    p50Us: percentile(times, 0.5) * 1000,
    p99Us: percentile(times, 0.99) * 1000,
    cpuPerCallUs: cpuUs / n,
    userUs: split.user / n,
    sysUs: split.system / n,
  };
}

async function throughput() {
  const c = await open(process.execPath, serverArgs, options);
  for (let i = 0; i < 300; i++) await c.call({ text: 'warm' });
  const total = 20000;
  const inFlight = 64;
  let sent = 0;
  let limit = 0;
  async function lane() {
    while (sent < limit) {
      const i = sent++;
      const r = await c.call({ text: `m${i}` });
      if (text(r) !== `m${i}`) throw new Error('wrong answer');
    }
  }
  // Warm-up with the same 64 in flight: after 300 sequential calls V8 was still compiling
  // the in-flight path (on its helper threads, counted in the process's CPU time) during
  // the measured calls, which charged a bigger client's compile time as per-call cost.
  limit = THROUGHPUT_WARMUP_CALLS;
  await Promise.all(Array.from({ length: inFlight }, lane));
  sent = 0;
  limit = total;
  const split0 = process.cpuUsage();
  const cpu0 = cpu();
  const t0 = now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (now() - t0) / 1000;
  const cpuUs = cpu() - cpu0;
  const split = process.cpuUsage(split0);
  await c.close();
  return {
    callsPerSec: total / seconds,
    cpuPerCallUs: cpuUs / total,
    userUs: split.user / total,
    sysUs: split.system / total,
  };
}

async function connect() {
  const samples = [];
  for (let i = 0; i < 5; i++) {
    const t = now();
    const c = await open(process.execPath, serverArgs, options);
    samples.push(now() - t);
    await c.close();
  }
  samples.sort((a, b) => a - b);
  return { connectMs: samples[2] };
}

async function big() {
  const bytes = Number(bytesArg);
  const c = await open(process.execPath, serverArgs, options);
  await c.call({ text: 'warm' });
  // Let the server build its payload once, so only the transfer is timed.
  await c.call({ bytes: 16 });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const t = now();
  let ok = true;
  let error;
  try {
    const r = await c.call({ bytes });
    if (text(r).length !== bytes) throw new Error(`got ${text(r).length} bytes`);
  } catch (e) {
    ok = false;
    error = String(e?.message ?? e).slice(0, 120);
  }
  const ms = now() - t;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  await Promise.race([c.close(), new Promise((r) => setTimeout(r, 2000))]);
  return ok ? { ms, peakRssMb, rssBeforeMb: rssBefore / 1048576 } : { failed: error };
}

const scenarios = { latency, throughput, connect, big };
const result = await scenarios[scenario]();
if (serverName === 'http') result.listenerWarnings = listenerWarnings;
httpServer?.kill('SIGTERM');
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
