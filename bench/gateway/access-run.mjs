// The signed-in row's access layer alone, in one process: `AccessControl.run` of the built
// @mcpkit/gateway with the row's access section (signedInAccess: four rules, the rate limit,
// the audit log to a file) for a verified caller, 64 calls at a time whose answers arrive
// together (as the answers of one backend read do), and the same without the audit log.
// No HTTP, no backend: the CPU per call of the policy, the bucket and the audit line and its
// write, steadier on a loaded machine than the row's gateway processes. Given a second
// tree (a built checkout), its gateway is measured beside this one, in alternating rounds.
// Usage: node bench/gateway/access-run.mjs [rounds=20] [other tree]   (after `pnpm build`)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signedInAccess } from './setups.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [roundsArg = '20', other] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const BLOCKS = 200;
const IN_FLIGHT = 64;
const trees = [['this tree', path.resolve(here, '../..')]];
if (other) trees.push(['other tree', path.resolve(other)]);

const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-access-'));
/** A caller as the listener hands a verified JWT's to the gateway: one frozen object per token. */
const authInfo = Object.freeze({
  kind: 'jwt',
  subject: 'bench-user',
  clientId: 'bench-client',
  scopes: Object.freeze(['echo:call']),
});
const ctx = { sessionId: '0f3c9a0e-1b7a-4a8e-9d7c-2f9c7a5b1e3d', authInfo };
const answer = { content: [{ type: 'text', text: 'hello' }] };

const sides = [];
for (const [label, root] of trees) {
  const g = await import(path.join(root, 'packages/gateway/dist/index.js'));
  const { access } = g.parseGatewayConfig(JSON.stringify({ access: signedInAccess }), {
    file: path.join(dir, 'gateway.jsonc'),
    servers: ['echo'],
  });
  const file = path.join(dir, `${sides.length}.log`);
  sides.push({
    label: `${label}, audit on`,
    ac: new g.AccessControl({ config: access, audit: new g.AuditFile(file) }),
  });
  sides.push({ label: `${label}, audit off`, ac: new g.AccessControl({ config: access }) });
}
for (const s of sides) s.cpu = [];

/** 64 calls whose forwards resolve together, then the rest of the loop turn. */
async function block(ac) {
  let release;
  const answered = new Promise((resolve) => {
    release = resolve;
  });
  const calls = [];
  for (let i = 0; i < IN_FLIGHT; i++) {
    const call = {
      endpoint: 'default',
      server: 'echo',
      kind: 'tool',
      name: 'echo',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello' } },
    };
    calls.push(ac.run(call, ctx, () => answered.then(() => answer)));
  }
  release();
  await Promise.all(calls);
  await new Promise((resolve) => setImmediate(resolve));
}

try {
  for (const s of sides) for (let i = 0; i < 2000; i++) await block(s.ac);
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const c0 = process.cpuUsage();
      for (let b = 0; b < BLOCKS; b++) await block(s.ac);
      const c = process.cpuUsage(c0);
      s.cpu.push((c.user + c.system) / (BLOCKS * IN_FLIGHT));
    }
  }
  const median = (a) => {
    const b = [...a].sort((x, y) => x - y);
    return b.length % 2 ? b[(b.length - 1) / 2] : (b[b.length / 2 - 1] + b[b.length / 2]) / 2;
  };
  for (const s of sides)
    process.stdout.write(
      `${s.label}: ${median(s.cpu).toFixed(3)} µs CPU per call (median of ${ROUNDS} rounds)\n`,
    );
  if (other)
    for (const k of [0, 1])
      process.stdout.write(
        `${sides[k].label.replace('this tree, ', '')}: this / other tree, median of per-round ratios ${median(sides[k].cpu.map((v, i) => v / sides[k + 2].cpu[i])).toFixed(3)}×\n`,
      );
  process.stdout.write(
    `load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  for (const s of sides) s.ac.close();
  rmSync(dir, { recursive: true, force: true });
}
