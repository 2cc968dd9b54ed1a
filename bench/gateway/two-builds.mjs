// Two builds of the gateway over Streamable HTTP side by side in one process, with the floor
// forwarder: rotating blocks with 64 calls in flight (or `inFlight`), the two builds' order
// swapped every other round. Per block: calls/s, the intermediary's CPU per call, its
// backend's and this process's (the caller's) CPU per call. Prints medians and the
// per-round ratios of build B to build A. `<tree>` is a checkout (or a copy of one) with its
// build done: the gateway runs from its apps/cli/dist, the caller from its packages.
// Usage: node bench/gateway/two-builds.mjs <treeA> <treeB> [rounds=8] [blockMs=1500] [inFlight=64]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [treeA, treeB, roundsArg = '8', blockArg = '1500', inFlightArg = '64'] =
  process.argv.slice(2);
if (!treeA || !treeB) {
  process.stderr.write('usage: two-builds.mjs <treeA> <treeB> [rounds] [blockMs] [inFlight]\n');
  process.exit(2);
}
const IN_FLIGHT = Number(inFlightArg);
const a = await import(path.resolve(treeA, 'bench/gateway/setups.mjs'));
const b = await import(path.resolve(treeB, 'bench/gateway/setups.mjs'));
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-two-builds-'));
const open = [];
try {
  open.push({ label: 'floor', ...(await b.openSetup('http', 'floor-proxy', home)) });
  open.push({ label: 'A', ...(await a.openSetup('http', 'mcpkit-serve', home)) });
  open.push({ label: 'B', ...(await b.openSetup('http', 'mcpkit-serve', home)) });
  // The backend is the intermediary's one child.
  for (const s of open)
    s.backend = Number(readFileSync(`/proc/${s.pid}/task/${s.pid}/children`, 'utf8').trim());
  const call = (s) => {
    s.calls = (s.calls ?? 0) + 1;
    return s.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  };
  const block = async (s, ms) => {
    let done = 0;
    const end = performance.now() + ms;
    const [g0, b0, c0, t0] = [
      b.cpuNs(s.pid),
      b.cpuNs(s.backend),
      process.cpuUsage(),
      performance.now(),
    ];
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          await call(s);
          done++;
        }
      }),
    );
    const caller = process.cpuUsage(c0);
    return {
      perSecond: done / ((performance.now() - t0) / 1e3),
      gatewayUs: (b.cpuNs(s.pid) - g0) / 1e3 / done,
      backendUs: (b.cpuNs(s.backend) - b0) / 1e3 / done,
      callerUs: (caller.user + caller.system) / done,
    };
  };
  for (const s of open) {
    for (let i = 0; i < 2000; i++) await call(s);
    await block(s, 1500);
  }
  const rows = { floor: [], A: [], B: [] };
  for (let r = 0; r < Number(roundsArg); r++) {
    const order = r % 2 ? [open[0], open[2], open[1]] : open;
    for (const s of order) rows[s.label].push(await block(s, Number(blockArg)));
  }
  const median = (list) => {
    const s = [...list].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  for (const key of ['perSecond', 'gatewayUs', 'backendUs', 'callerUs'])
    process.stdout.write(
      `${key.padEnd(10)} ${Object.entries(rows)
        .map(([label, list]) => `${label} ${median(list.map((x) => x[key])).toFixed(1)}`)
        .join('  ')}\n`,
    );
  // All the calls each intermediary forwarded, warm-up included (to divide a whole-process
  // figure, such as the GC totals of a --trace-gc-nvp log, by).
  process.stdout.write(
    `calls      ${open.map((s) => `${s.label} ${s.calls} (pid ${s.pid})`).join('  ')}\n`,
  );
  const ratios = (key, x, y) => rows[x].map((v, i) => v[key] / rows[y][i][key]);
  for (const [key, x, y] of [
    ['perSecond', 'A', 'floor'],
    ['perSecond', 'B', 'floor'],
    ['perSecond', 'B', 'A'],
    ['gatewayUs', 'B', 'A'],
    ['callerUs', 'B', 'A'],
  ]) {
    const list = ratios(key, x, y);
    process.stdout.write(
      `${key} ${x}/${y}: median ${median(list).toFixed(2)} [${list.map((v) => v.toFixed(2)).join(' ')}]\n`,
    );
  }
} finally {
  for (const s of open) await s.close().catch(() => {});
  rmSync(home, { recursive: true, force: true });
}
