// CPU per tool call through the manager's host tool (HostTool.call) against a direct
// McpClient.callTool on the same connection, in this process. Blocks of calls alternate
// (direct, with progress token, host; each round starting with the next kind) so drift
// hits all alike; each figure is the median block, each ratio the median of the rounds'.
// Prints one JSON line.
import { McpManager } from '@mcpkit/manager';
import { resolvedServers } from './manager-servers.mjs';
import { echoServer } from './servers.mjs';

const manager = new McpManager({
  servers: resolvedServers({ command: process.execPath, args: [echoServer], count: 1 }),
  clientInfo: { name: 'bench-tool-call', version: '1.0.0' },
});
const snapshot = await manager.connectAll();
const state = snapshot.servers[0];
if (state?.state !== 'connected') throw new Error(`not connected: ${state?.error?.message}`);
const client = state.client;
const hostTool = (await manager.tools()).find((t) => t.tool === 'echo');
if (!hostTool) throw new Error('no echo tool');

const direct = (i) =>
  client.callTool({ name: 'echo', arguments: { text: `m${i}` } }).then((r) => r.content[0].text);
const hosted = (i) => hostTool.call({ text: `m${i}` }).then((r) => r.text);
// The same request as the manager sends (it always asks for progress), made directly:
// separates the cost of the progress token from the cost of the manager's wrapper.
const directWithProgress = (i) =>
  client
    .callTool(
      { name: 'echo', arguments: { text: `m${i}` } },
      { onprogress: () => {}, resetTimeoutOnProgress: true },
    )
    .then((r) => r.content[0].text);

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** CPU µs per call of `n` calls, `lanes` in flight; checks every answer. */
async function block(call, n, lanes) {
  let next = 0;
  const c0 = cpu();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        const i = next++;
        if ((await call(i)) !== `m${i}`) throw new Error('wrong answer');
      }
    }),
  );
  return (cpu() - c0) / n;
}

async function compare(n, lanes, blocks) {
  for (const call of [direct, directWithProgress, hosted]) await block(call, 500, lanes);
  const d = [];
  const p = [];
  const h = [];
  const kinds = [
    [direct, d],
    [directWithProgress, p],
    [hosted, h],
  ];
  for (let b = 0; b < blocks; b++) {
    // Each round starts with another kind, so none always runs right after a GC-heavy one.
    for (let k = 0; k < kinds.length; k++) {
      const [call, out] = kinds[(b + k) % kinds.length];
      out.push(await block(call, n, lanes));
    }
  }
  return {
    direct: median(d),
    progress: median(p),
    host: median(h),
    ratio: median(h.map((x, i) => x / d[i])),
    progressRatio: median(h.map((x, i) => x / p[i])),
  };
}

const inFlight = 16;
// Rounds of paired blocks; the ratio is the median of each round's own ratio, which the
// machine's load moves far less than the absolute figures.
const rounds = Number(process.argv[2] ?? 15);
const seq = await compare(1000, 1, rounds);
const par = await compare(4000, inFlight, rounds);
await manager.close();
process.stdout.write(
  `${JSON.stringify({
    directSeqUs: seq.direct,
    progressSeqUs: seq.progress,
    hostSeqUs: seq.host,
    seqRatio: seq.ratio,
    seqVsProgressRatio: seq.progressRatio,
    directParUs: par.direct,
    progressParUs: par.progress,
    hostParUs: par.host,
    parRatio: par.ratio,
    parVsProgressRatio: par.progressRatio,
    inFlight,
    rounds,
  })}\n`,
);
process.exit(0);
