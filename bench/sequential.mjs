// The sequential scenario, paired: the floor and each client run by run, in one order
// (floor, mcpkit, sdk-v1, sdk-v2, floor, …), so that the machine's load at a given moment
// hits a client run and the floor runs next to it alike. A client run's ratio is taken
// against the mean of the two floor runs that bracket it, and the reported ratio is the
// median of those per-pair ratios (as a paired timer does), not a ratio of medians.

export const median = (values) => {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

const KEYS = ['p50Us', 'p99Us', 'cpuPerCallUs'];

/**
 * @param {object} o
 * @param {string[]} o.clients the clients to pair with the floor (not 'floor' itself)
 * @param {number} o.rounds how many runs of each client
 * @param {(client: string) => Record<string, number> & { failed?: string }} o.runOne one
 *   fresh worker run of the latency scenario
 * @param {(line: string) => void} [o.log]
 */
export function pairedSequential({ clients, rounds, runOne, log = () => {} }) {
  const floorRuns = [runOne('floor')];
  const runsOf = Object.fromEntries(clients.map((c) => [c, []]));
  // ratios[c][key] = per-pair ratios; vsSdk[key] = mcpkit / sdk-v1 within the same round.
  const ratios = Object.fromEntries(
    clients.map((c) => [c, Object.fromEntries(KEYS.map((k) => [k, []]))]),
  );
  const vsSdk = Object.fromEntries(KEYS.map((k) => [k, []]));
  // mcpkit / floor-detached within the same round: the floor spawned as StdioTransport
  // spawns (detached), the one the sequential targets are held against (issue #21 item 7).
  const vsDetached = Object.fromEntries(KEYS.map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    const round = {};
    for (const c of clients) round[c] = runOne(c);
    const before = floorRuns[floorRuns.length - 1];
    const after = runOne('floor');
    floorRuns.push(after);
    for (const c of clients) {
      const r = round[c];
      runsOf[c].push(r);
      if (r.failed || before.failed || after.failed) continue;
      for (const k of KEYS) ratios[c][k].push(r[k] / ((before[k] + after[k]) / 2));
    }
    const m = round.mcpkit;
    const s = round['sdk-v1'];
    if (m && s && !m.failed && !s.failed) for (const k of KEYS) vsSdk[k].push(m[k] / s[k]);
    const d = round['floor-detached'];
    if (m && d && !m.failed && !d.failed) for (const k of KEYS) vsDetached[k].push(m[k] / d[k]);
    log(
      `[sequential round ${i + 1}/${rounds}] p50 µs: floor ${before.p50Us?.toFixed(0)}→${after.p50Us?.toFixed(0)}, ${clients.map((c) => `${c} ${round[c].p50Us?.toFixed(0) ?? 'fails'}`).join(', ')}`,
    );
  }
  const summarize = (list) => {
    const ok = list.filter((r) => !r.failed);
    if (ok.length === 0) return { failed: list[0]?.failed ?? 'no runs' };
    return Object.fromEntries(KEYS.map((k) => [k, median(ok.map((r) => r[k]))]));
  };
  return {
    rounds,
    figures: {
      floor: summarize(floorRuns),
      ...Object.fromEntries(clients.map((c) => [c, summarize(runsOf[c])])),
    },
    // Median of per-pair ratios against the bracketing floor runs, per client and figure.
    vsFloor: Object.fromEntries(
      clients.map((c) => [c, Object.fromEntries(KEYS.map((k) => [k, median(ratios[c][k])]))]),
    ),
    vsSdkV1: Object.fromEntries(KEYS.map((k) => [k, median(vsSdk[k])])),
    vsDetached: Object.fromEntries(KEYS.map((k) => [k, median(vsDetached[k])])),
    samples: { floor: floorRuns, ...runsOf },
  };
}
