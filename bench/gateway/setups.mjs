// The ways the gateway benchmark reaches the echo backend, over stdio or Streamable HTTP:
// `direct` (the backend itself), `floor-proxy` (a hand-written forwarder: the least an
// intermediary in Node costs), `sdk-proxy` (an SDK v1 Client + Server in one process) and
// `mcpkit-serve` (the CLI's gateway, from apps/cli/dist). The caller is always McpClient,
// pinned to the 2025 era so that all three speak the same revision.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { startAuthorizationServer } from './authorization-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const servers = path.join(here, '../servers');
export const setupNames = ['direct', 'floor-proxy', 'sdk-proxy', 'mcpkit-serve'];
/**
 * The signed-in row (issue #24, HTTP only): `mcpkit-serve` as above (the static token only)
 * beside `mcpkit-serve-signed-in`: the same gateway with a gateway config that turns on JWT
 * access tokens from the bench's own authorization server, a policy of a few rules, a rate
 * limit too high to refuse anything, and the audit log to a file.
 */
export const signedInSetupNames = ['mcpkit-serve', 'mcpkit-serve-signed-in'];

/** The access section of the signed-in setup: rules of each kind, the echo tool allowed. */
export const signedInAccess = {
  rules: [
    { scope: ['echo:call'], servers: ['echo'], tools: ['echo', 'echo_*'] },
    { group: ['admins'], servers: ['*'] },
    { subject: ['blocked-*'], effect: 'deny' },
    { clientId: ['untrusted-*'], effect: 'deny', tools: ['*'] },
  ],
  rateLimit: { rate: 1_000_000, burst: 1_000_000 },
  audit: { file: 'audit.log' },
};

let authorizationServer;
/** The bench's authorization server, started on first use (it lives in the worker process). */
function authorization() {
  authorizationServer ??= startAuthorizationServer();
  return authorizationServer;
}
/** The hand-written NDJSON echo server: the backend costs as little as it can. */
const backend = [process.execPath, path.join(servers, 'echo-server.mjs')];
const cli = path.join(here, '../../apps/cli/dist/bin.js');

/**
 * `MCPKIT_BENCH_GATEWAY_CPU_PROF=<dir>`: each intermediary process writes a V8 CPU profile
 * to `<dir>/<setup>/` when it exits (sampled every `MCPKIT_BENCH_GATEWAY_CPU_PROF_INTERVAL_US`
 * µs when set; V8's 1000 by default).
 */
function profileFlags(setup) {
  const dir = process.env.MCPKIT_BENCH_GATEWAY_CPU_PROF;
  const interval = process.env.MCPKIT_BENCH_GATEWAY_CPU_PROF_INTERVAL_US;
  return dir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${path.resolve(dir, setup)}`,
        ...(interval ? [`--cpu-prof-interval=${interval}`] : []),
      ]
    : [];
}

/**
 * `MCPKIT_BENCH_GATEWAY_NODE_FLAGS`: flags for node running `mcpkit serve` (space-separated);
 * `MCPKIT_BENCH_FLOOR_NODE_FLAGS`: the same for the floor forwarder over HTTP.
 * `MCPKIT_BENCH_GATEWAY_STDOUT=<dir>`: the stdout of an intermediary over HTTP (where
 * `--trace-gc-nvp` prints) is also written to `<dir>/<pid>.log`.
 */
function nodeFlags(name = 'MCPKIT_BENCH_GATEWAY_NODE_FLAGS') {
  return process.env[name]?.split(' ').filter(Boolean) ?? [];
}

/**
 * `MCPKIT_BENCH_GATEWAY_WRAP`: a command (space-separated) that runs each intermediary's node
 * (`floor-proxy`, `sdk-proxy`, `mcpkit-serve*`; never `direct` or the backend), such as
 * `valgrind --tool=callgrind …` (instructions.mjs). Returns the command and the arguments
 * that come before node's own.
 */
function launcher(setup) {
  const wrap = process.env.MCPKIT_BENCH_GATEWAY_WRAP?.split(' ').filter(Boolean) ?? [];
  if (setup === 'direct' || wrap.length === 0) return [process.execPath];
  return [...wrap, process.execPath];
}

function serveArgs(extra, setup = 'mcpkit-serve') {
  const config = JSON.stringify({
    mcpServers: { echo: { command: backend[0], args: [backend[1]] } },
  });
  return [
    ...profileFlags(setup),
    ...nodeFlags(),
    cli,
    'serve',
    '-c',
    config,
    '--strict-config',
    '--no-prefix',
    ...extra,
  ];
}

/**
 * CPU time (user + system) of a process's main thread and of its other threads, in
 * nanoseconds, from /proc/<pid>/task/<tid>/schedstat (nanosecond resolution; /proc/<pid>/stat
 * counts 10 ms ticks).
 */
export function threadCpuNs(pid) {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
      if (tid === String(pid)) main += ns;
      else others += ns;
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return { main, others };
}

/** CPU time (user + system) of a process in nanoseconds: the sum of its threads' run time. */
export function cpuNs(pid) {
  const { main, others } = threadCpuNs(pid);
  return main + others;
}

function client() {
  return new McpClient({ name: 'bench', era: 'legacy', eraCache: false });
}

async function openStdio(name, home) {
  const command =
    name === 'direct'
      ? backend
      : name === 'floor-proxy'
        ? [
            ...launcher(name),
            ...profileFlags('floor-proxy'),
            path.join(servers, 'floor-proxy.mjs'),
            ...backend,
          ]
        : name === 'sdk-proxy'
          ? [
              ...launcher(name),
              ...profileFlags('sdk-proxy'),
              path.join(servers, 'sdk-v1-proxy.mjs'),
              ...backend,
            ]
          : [...launcher(name), ...serveArgs([])];
  const transport = new StdioTransport({
    command: command[0],
    args: command.slice(1),
    name,
    env: { HOME: home },
    // A profiled process needs time to write its profile after stdin ends.
    ...(process.env.MCPKIT_BENCH_GATEWAY_CPU_PROF || process.env.MCPKIT_BENCH_GATEWAY_WRAP
      ? { closeTimeline: { stdinGraceMs: 5000 } }
      : {}),
  });
  const c = client();
  await c.connect(transport);
  return { name, client: c, pid: transport.pid, close: () => c.close() };
}

/** Starts a process that prints where it listens; resolves with the URL it printed. */
function startListening(setup, args, home, pattern, stream, env = {}) {
  const [command, ...before] = launcher(setup);
  const child = spawn(command, [...before, ...args], {
    env: { ...process.env, HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = new Promise((resolve, reject) => {
    let seen = '';
    const out = child[stream];
    out.setEncoding('utf8');
    out.on('data', (text) => {
      seen = (seen + text).slice(-4096);
      const match = pattern.exec(seen);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`${args[0]} exited (${code}) before listening: ${seen.trim()}`)),
    );
  });
  // Keep draining both pipes so the child never blocks on a full one.
  const keep = process.env.MCPKIT_BENCH_GATEWAY_STDOUT;
  if (keep) child.stdout.pipe(createWriteStream(path.join(keep, `${child.pid}.log`)));
  else child.stdout.resume();
  child.stderr.resume();
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stop };
}

async function openHttp(name, home) {
  let started;
  /** `mcpkit serve --http` wants a bearer token on every bind: the client sends it. */
  let headers = {};
  if (name === 'direct') {
    started = startListening(
      name,
      [path.join(servers, 'http-echo-server.mjs')],
      home,
      /PORT (\d+)/,
      'stdout',
    );
  } else if (name === 'floor-proxy') {
    // The same static bearer token as `mcpkit-serve` gets, checked the same way (constant
    // time, 401 otherwise), so that neither the caller's header nor the check counts against
    // one side only.
    const token = randomBytes(32).toString('base64url');
    headers = { Authorization: `Bearer ${token}` };
    started = startListening(
      name,
      [
        ...profileFlags('floor-proxy'),
        ...nodeFlags('MCPKIT_BENCH_FLOOR_NODE_FLAGS'),
        path.join(servers, 'floor-proxy-http.mjs'),
        ...backend,
      ],
      home,
      /PORT (\d+)/,
      'stdout',
      { FLOOR_PROXY_TOKEN: token },
    );
  } else if (name === 'sdk-proxy') {
    started = startListening(
      name,
      [...profileFlags('sdk-proxy'), path.join(servers, 'sdk-v1-proxy-http.mjs'), ...backend],
      home,
      /PORT (\d+)/,
      'stdout',
    );
  } else if (name === 'mcpkit-serve-signed-in') {
    const as = await authorization();
    const file = path.join(home, 'gateway-signed-in.jsonc');
    writeFileSync(file, JSON.stringify({ auth: { issuers: [as.issuer] }, access: signedInAccess }));
    // OAuth alone (no static token): a loopback bind may leave the static token out.
    started = startListening(
      name,
      serveArgs(
        ['--http', '127.0.0.1:0', '--no-auth', '--gateway-config', file],
        'mcpkit-serve-signed-in',
      ),
      home,
      /listening on (http:\S+)/,
      'stderr',
    );
    // The token's audience is the endpoint's canonical URI, known once it listens.
    headers = async (url) => ({ Authorization: `Bearer ${await as.mint(url)}` });
  } else {
    const token = randomBytes(32).toString('base64url');
    headers = { Authorization: `Bearer ${token}` };
    started = startListening(
      name,
      serveArgs(['--http', '127.0.0.1:0']),
      home,
      /listening on (http:\S+)/,
      'stderr',
      { MCPKIT_SERVE_TOKEN: token },
    );
  }
  let url;
  try {
    const printed = await started.url;
    url = /^\d+$/.test(printed) ? `http://127.0.0.1:${printed}/mcp` : printed;
  } catch (error) {
    await started.stop();
    throw error;
  }
  if (typeof headers === 'function') headers = await headers(url);
  const c = client();
  await c.connect(new StreamableHttpTransport({ url, name, headers }));
  return {
    name,
    client: c,
    pid: started.child.pid,
    close: async () => {
      await c.close().catch(() => {});
      await started.stop();
    },
  };
}

/** Stops what the setups share (the authorization server, when one was started). */
export async function closeShared() {
  if (authorizationServer) await (await authorizationServer).close();
}

/** Opens one setup over `transport` ('stdio' | 'http'). */
export function openSetup(transport, name, home) {
  return transport === 'http' ? openHttp(name, home) : openStdio(name, home);
}
