// One transport's gateway rounds in a fresh process: opens direct, floor-proxy, sdk-proxy and
// mcpkit-serve side by side, then each round runs a block of sequential calls through each (in
// that order, turned by one every round), then a block with 64 in flight through each. Prints
// one JSON line: the per-round figures, with every sequential call's latency.
// Usage: node worker.mjs <stdio|http> <rounds> <sequential calls> <in-flight block: calls, or <n>ms> [warm-up calls] [signed-in]
// `signed-in` (HTTP): mcpkit-serve with the static token beside mcpkit-serve-signed-in instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeShared, cpuNs, openSetup, setupNames, signedInSetupNames } from './setups.mjs';

const [
  transport = 'stdio',
  roundsArg = '5',
  seqArg = '500',
  flightArg = '4000',
  warmArg = '1000',
  which = 'proxies',
] = process.argv.slice(2);
const names = which === 'signed-in' ? signedInSetupNames : setupNames;
const rounds = Number(roundsArg);
const sequential = Number(seqArg);
/** `<n>` calls with 64 in flight per block, or `<n>ms`: as many as start within n ms. */
const flightMs = flightArg.endsWith('ms') ? Number(flightArg.slice(0, -2)) : 0;
const flightCalls = flightMs ? 0 : Number(flightArg);
const IN_FLIGHT = 64;
/**
 * Calls per setup before the rounds, sequential and then again in flight. A process whose
 * path has more functions (an MCP gateway, an SDK proxy) is still compiling them with
 * TurboFan on V8's helper threads after a thousand calls: measured with 1000, the gateway's
 * helper threads used 16 µs and its main thread 72 µs per sequential call in the rounds,
 * with 10000, 6 and 56 µs (the floor forwarder: 1 and 54, then 1 and 50).
 */
const WARMUP = Number(warmArg);

const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-gateway-'));
const open = [];
try {
  for (const name of names) open.push(await openSetup(transport, name, home));
  const call = (s) => s.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  // Warm-up, sequential then in flight, so that every process runs optimized code.
  for (const s of open) {
    for (let i = 0; i < WARMUP; i++) await call(s);
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < WARMUP * 2) await call(s);
      }),
    );
  }

  const perRound = [];
  for (let round = 0; round < rounds; round++) {
    const figures = {};
    // The order turns every round, so no setup always runs first after the in-flight
    // blocks (whose garbage and compiled code the processes are still settling).
    const order = open.map((_, k) => open[(k + round) % open.length]);
    for (const s of order) {
      const times = new Float64Array(sequential);
      const cpu0 = cpuNs(s.pid);
      for (let i = 0; i < sequential; i++) {
        const t0 = process.hrtime.bigint();
        await call(s);
        times[i] = Number(process.hrtime.bigint() - t0) / 1e3;
      }
      const cpu = cpuNs(s.pid) - cpu0;
      times.sort();
      figures[s.name] = {
        p50Us: times[Math.floor(sequential / 2)],
        cpuUsPerCall: cpu / 1e3 / sequential,
        // Every call's latency (0.1 µs), for the p50 over all rounds' calls.
        timesUs: Array.from(times, (t) => Math.round(t * 10) / 10),
      };
    }
    for (const s of order) {
      let next = 0;
      let done = 0;
      // A timed block: no call starts after the deadline; the ones in flight finish.
      const more = flightMs ? (end) => performance.now() < end : () => next++ < flightCalls;
      const cpu0 = cpuNs(s.pid);
      const t0 = process.hrtime.bigint();
      const end = performance.now() + flightMs;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (more(end)) {
            await call(s);
            done++;
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      figures[s.name].perSecond = done / seconds;
      figures[s.name].cpuUsPerCallInFlight = (cpuNs(s.pid) - cpu0) / 1e3 / done;
      figures[s.name].inFlightCalls = done;
    }
    perRound.push(figures);
  }
  process.stdout.write(`${JSON.stringify({ transport, rounds: perRound })}\n`);
} finally {
  for (const s of open) await s.close().catch(() => {});
  await closeShared();
  rmSync(home, { recursive: true, force: true });
}
