// Paired rounds (the sequential scenario, and the 64-in-flight runs): the floor and each
// client run by run, in one order (floor, mcpkit, sdk-v1, sdk-v2, floor, …), so that the
// machine's load at a given moment hits a client run and the floor runs next to it alike. A client run's ratio is taken
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
 * The sequential rounds (the latency scenario's figures).
 * @param {object} o
 * @param {string[]} o.clients the clients to pair with the floor (not 'floor' itself)
 * @param {number} o.rounds how many runs of each client
 * @param {(client: string) => Record<string, number> & { failed?: string }} o.runOne one
 *   fresh worker run of the latency scenario
 * @param {(line: string) => void} [o.log]
 */
export function pairedSequential(o) {
  return pairedRounds({ ...o, keys: KEYS, what: 'sequential' });
}

/**
 * Paired rounds of any scenario: `floor`, then each client, then `floor` again, …; each
 * client run's ratio is taken against the mean of the two floor runs beside it, and
 * `ours` against `sdk` and against `detached` within the same round.
 * @param {object} o
 * @param {string} [o.floor] the client every other is paired with ('floor')
 * @param {string[]} o.clients the clients to pair with it
 * @param {string[]} o.keys the figures of a run to pair
 * @param {number} o.rounds how many runs of each client
 * @param {(client: string) => Record<string, number> & { failed?: string }} o.runOne one
 *   fresh worker run
 * @param {string} [o.ours] ('mcpkit') [o.sdk] ('sdk-v1') [o.detached] ('floor-detached')
 * @param {string} [o.what] a name for the log lines
 * @param {(line: string) => void} [o.log]
 */
export function pairedRounds({
  floor = 'floor',
  clients,
  keys,
  rounds,
  runOne,
  ours = 'mcpkit',
  sdk = 'sdk-v1',
  detached = 'floor-detached',
  what = 'paired',
  log = () => {},
}) {
  const first = keys[0];
  const floorRuns = [runOne(floor)];
  const runsOf = Object.fromEntries(clients.map((c) => [c, []]));
  // ratios[c][key] = per-pair ratios; vsSdk[key] = ours / sdk within the same round.
  const ratios = Object.fromEntries(
    clients.map((c) => [c, Object.fromEntries(keys.map((k) => [k, []]))]),
  );
  const vsSdk = Object.fromEntries(keys.map((k) => [k, []]));
  // ours / floor-detached within the same round: the floor spawned as StdioTransport
  // spawns (detached), the one the sequential targets are held against (issue #21 item 7).
  const vsDetached = Object.fromEntries(keys.map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    const round = {};
    for (const c of clients) round[c] = runOne(c);
    const before = floorRuns[floorRuns.length - 1];
    const after = runOne(floor);
    floorRuns.push(after);
    for (const c of clients) {
      const r = round[c];
      runsOf[c].push(r);
      if (r.failed || before.failed || after.failed) continue;
      for (const k of keys) ratios[c][k].push(r[k] / ((before[k] + after[k]) / 2));
    }
    const m = round[ours];
    const s = round[sdk];
    if (m && s && !m.failed && !s.failed) for (const k of keys) vsSdk[k].push(m[k] / s[k]);
    const d = round[detached];
    if (m && d && !m.failed && !d.failed) for (const k of keys) vsDetached[k].push(m[k] / d[k]);
    log(
      `[${what} round ${i + 1}/${rounds}] ${first}: ${floor} ${before[first]?.toFixed(0)}→${after[first]?.toFixed(0)}, ${clients.map((c) => `${c} ${round[c][first]?.toFixed(0) ?? 'fails'}`).join(', ')}`,
    );
  }
  const summarize = (list) => {
    const ok = list.filter((r) => !r.failed);
    if (ok.length === 0) return { failed: list[0]?.failed ?? 'no runs' };
    return Object.fromEntries(keys.map((k) => [k, median(ok.map((r) => r[k]))]));
  };
  return {
    rounds,
    figures: {
      [floor]: summarize(floorRuns),
      ...Object.fromEntries(clients.map((c) => [c, summarize(runsOf[c])])),
    },
    // Median of per-pair ratios against the bracketing floor runs, per client and figure.
    vsFloor: Object.fromEntries(
      clients.map((c) => [c, Object.fromEntries(keys.map((k) => [k, median(ratios[c][k])]))]),
    ),
    vsSdkV1: Object.fromEntries(keys.map((k) => [k, median(vsSdk[k])])),
    vsDetached: Object.fromEntries(keys.map((k) => [k, median(vsDetached[k])])),
    samples: { [floor]: floorRuns, ...runsOf },
  };
}
