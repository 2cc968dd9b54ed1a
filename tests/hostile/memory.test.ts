import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_MESSAGE_BYTES } from '@mcpkit/jsonrpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp } from '../support/everything-http.js';
import { startBodiesServer } from './servers/bodies-server.mjs';

/**
 * Issue #10, acceptance: under the hostile servers, the CLI's peak RSS stays under its
 * baseline plus twice the message size limit. The built CLI runs `tools` against each
 * hostile mode, with a preload that writes `process.resourceUsage().maxRSS` at exit; the
 * baseline is the same command against server-everything. The runs leave
 * `--max-message-bytes` at its default (DEFAULT_MAX_MESSAGE_BYTES, 64 MiB), the limit here.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const stdioServer = fileURLToPath(new URL('./servers/bodies-stdio.mjs', import.meta.url));
const cli = path.join(root, 'apps/cli/dist/bin.js');
const MiB = 1024 * 1024;
const scratch = mkdtempSync(path.join(tmpdir(), 'mcpkit-hostile-memory-'));
const reporter = path.join(scratch, 'rss-reporter.mjs');
writeFileSync(
  reporter,
  [
    "import { writeFileSync } from 'node:fs';",
    '// maxRSS is in KiB; written at exit so the figure is the peak of the whole run.',
    "process.on('exit', () => writeFileSync(process.env.MCPKIT_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));",
    '',
  ].join('\n'),
);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  code: number | null;
  output: string;
  peakRssBytes: number;
}

const children = new Set<ChildProcess>();

/** Runs the built CLI with a fresh HOME and XDG folders; resolves at its exit. */
async function runCli(label: string, servers: Record<string, unknown>): Promise<Run> {
  const home = mkdtempSync(path.join(scratch, `${label}-`));
  const rssFile = path.join(home, 'peak-rss');
  for (const dir of ['.config', '.local/share', '.local/state', '.cache', 'project'])
    mkdirSync(path.join(home, dir), { recursive: true });
  const child = spawn(
    process.execPath,
    [
      '--import',
      reporter,
      cli,
      '--strict-config',
      '--config',
      JSON.stringify({ mcpServers: servers }),
      'tools',
    ],
    {
      cwd: path.join(home, 'project'),
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local/share'),
        XDG_STATE_HOME: path.join(home, '.local/state'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        MCPKIT_RSS_FILE: rssFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  children.delete(child);
  expect(existsSync(rssFile), `the CLI wrote no peak RSS (exit ${code}): ${output}`).toBe(true);
  return { code, output, peakRssBytes: Number(readFileSync(rssFile, 'utf8')) };
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

// The remote entries carry their own Authorization header, so no OAuth flow starts.
const auth = { Authorization: 'Bearer hostile-test' };

const cases: Array<[mode: string, type: 'http' | 'sse', suffix: string, expected: RegExp]> = [
  ['error-500', 'http', '', /POST \S+error-500 → 500: x{10}/],
  ['error-400-json', 'http', '', /exceeds the 67108864-byte message limit/],
  ['huge-event', 'http', '', /an event in the answer .* exceeds the 67108864-byte message limit/],
  [
    'endless-event',
    'http',
    '',
    /an event in the answer .* exceeds the 67108864-byte message limit/,
  ],
  ['json-length', 'http', '', /a JSON response .* exceeds the 67108864-byte message limit/],
  ['json-chunked', 'http', '', /a JSON response .* exceeds the 67108864-byte message limit/],
  ['endless-body', 'http', '', /a JSON response .* exceeds the 67108864-byte message limit/],
  ['legacy-500', 'sse', '/sse', /GET \S+legacy-500\/sse → 500/],
  ['legacy-post-500', 'sse', '/sse', /POST \S+legacy-post-500\/message\S* → 500/],
  ['legacy-event', 'sse', '/sse', /an event on GET .* exceeds the 67108864-byte message limit/],
];

describe('hostile servers: the CLI stays within baseline + 2 × maxMessageBytes', () => {
  let baseline = 0;

  beforeAll(async () => {
    expect(existsSync(cli), `${cli} is missing: run "pnpm build" first`).toBe(true);
    const everything = await startEverythingHttp('streamableHttp');
    try {
      const run = await runCli('baseline', {
        everything: { type: 'http', url: `${everything.base}/mcp`, headers: auth },
      });
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/^everything \(\d+ tools\)/m);
      baseline = run.peakRssBytes;
      console.log(
        `[memory] CLI baseline (tools against server-everything): peak RSS ${(baseline / MiB).toFixed(1)} MiB; limit per run: baseline + 2 × ${DEFAULT_MAX_MESSAGE_BYTES / MiB} MiB = ${((baseline + 2 * DEFAULT_MAX_MESSAGE_BYTES) / MiB).toFixed(1)} MiB`,
      );
    } finally {
      await everything.close();
    }
  }, 120_000);

  it('stdio: a response line that never ends — a typed error, and peak RSS under the bound', async () => {
    const run = await runCli('stdio-endless-line', {
      evil: { type: 'stdio', command: process.execPath, args: [stdioServer] },
    });
    const bound = baseline + 2 * DEFAULT_MAX_MESSAGE_BYTES;
    console.log(
      `[memory] stdio-endless-line: peak RSS ${(run.peakRssBytes / MiB).toFixed(1)} MiB (baseline + ${((run.peakRssBytes - baseline) / MiB).toFixed(1)} MiB; bound ${(bound / MiB).toFixed(1)} MiB); exit ${run.code}`,
    );
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/server "evil".*over the 67108864-byte limit/);
    expect(run.peakRssBytes).toBeLessThan(bound);
  }, 180_000);

  it.each(cases)(
    '%s (%s): a typed error, and peak RSS under the bound',
    async (mode, type, suffix, expected) => {
      await using server = await startBodiesServer();
      const run = await runCli(mode, {
        evil: { type, url: `${server.baseUrl}/${mode}${suffix}`, headers: auth },
      });
      const bound = baseline + 2 * DEFAULT_MAX_MESSAGE_BYTES;
      console.log(
        `[memory] ${mode}: peak RSS ${(run.peakRssBytes / MiB).toFixed(1)} MiB (baseline + ${((run.peakRssBytes - baseline) / MiB).toFixed(1)} MiB; bound ${(bound / MiB).toFixed(1)} MiB); exit ${run.code}`,
      );
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('server "evil"');
      expect(run.output).toMatch(expected);
      // The next step is said once, not once in the reason and again after it.
      expect(run.output.split('accepts more').length - 1).toBeLessThanOrEqual(1);
      expect(run.peakRssBytes).toBeLessThan(bound);
      // The server saw the client hang up before its body was done.
      const sent = await (await server.response(mode)).closed;
      expect(sent.finished).toBe(false);
    },
    180_000,
  );
});
