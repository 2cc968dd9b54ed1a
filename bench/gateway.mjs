// Per forwarded tools/call: the latency and CPU that `mcpkit serve` adds (stdio), beside an
// SDK v1 Client+Server proxy and beside calling the backend directly, in one run. The caller
// is always McpClient over stdio; the backend is the SDK v1 echo server. CPU is the
// intermediary process's user+sys time (from /proc) over the calls, per call.
// Usage: node bench/gateway.mjs [calls]   (build first: pnpm turbo run build --filter mcpkit...)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';

const here = path.dirname(fileURLToPath(import.meta.url));
const calls = Number(process.argv[2] ?? 2000);
const backend = [process.execPath, path.join(here, 'servers/sdk-server.mjs')];
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-gateway-'));
const config = JSON.stringify({
  mcpServers: { echo: { command: backend[0], args: [backend[1]] } },
});

const setups = {
  direct: { command: backend[0], args: [backend[1]], tool: 'echo' },
  'sdk-v1-proxy': {
    command: process.execPath,
    args: [path.join(here, 'servers/sdk-v1-proxy.mjs'), ...backend],
    tool: 'echo',
  },
  'mcpkit-serve': {
    command: process.execPath,
    args: [
      path.join(here, '../apps/cli/dist/bin.js'),
      'serve',
      '-c',
      config,
      '--strict-config',
      '--no-prefix',
    ],
    tool: 'echo',
  },
};

const ticks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100/s)
};

async function measure(name, setup) {
  const transport = new StdioTransport({
    command: setup.command,
    args: setup.args,
    name,
    env: { HOME: home },
  });
  const client = new McpClient({ name: 'bench', era: 'legacy', eraCache: false });
  await client.connect(transport);
  const pid = transport.pid;
  const call = () => client.callTool({ name: setup.tool, arguments: { text: 'hello' } });
  for (let i = 0; i < 300; i++) await call();
  const times = [];
  const before = name === 'direct' ? 0 : ticks(pid);
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpuMsPerCall = name === 'direct' ? 0 : ((ticks(pid) - before) * 10) / calls;
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length / 2)];
  // Throughput with 64 in flight.
  const total = calls * 4;
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next++ < total) await call();
    }),
  );
  const perSecond = total / (Number(process.hrtime.bigint() - t0) / 1e9);
  await client.close();
  return { name, p50, cpuMsPerCall, perSecond };
}

const rows = [];
for (const [name, setup] of Object.entries(setups)) rows.push(await measure(name, setup));
rmSync(home, { recursive: true, force: true });
const direct = rows.find((r) => r.name === 'direct');
console.log(
  `forwarded tools/call over stdio, ${calls} sequential calls, then ${calls * 4} with 64 in flight`,
);
console.log(
  'setup          p50 ms   added p50 ms   intermediary CPU ms/call   calls/s (64 in flight)',
);
for (const r of rows)
  console.log(
    `${r.name.padEnd(14)} ${r.p50.toFixed(3).padStart(6)}   ${(r.p50 - direct.p50).toFixed(3).padStart(12)}   ${r.cpuMsPerCall.toFixed(3).padStart(24)}   ${r.perSecond.toFixed(0).padStart(8)}`,
  );
