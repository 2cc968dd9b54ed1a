import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { startRedis } from '../support/scaleout.js';

/**
 * Issue #28 item 1: `mcpkit` on the PATH. The root README's command for a clone
 * (`pnpm run install-cli`: a build, then `scripts/install-cli.mjs`) packs the CLI and the
 * @mcpkit packages it needs with `pnpm pack`, as they would be published, and installs the
 * tarballs with `npm install -g`. Run here as a new user would: a fresh HOME, a global
 * prefix of their own (NPM_CONFIG_PREFIX), no workspace in reach; npm's cache is the
 * machine's, as for the other pack cases (the tarballs' third-party dependencies come
 * from it). Then the installed `mcpkit` runs from that prefix's bin alone, against
 * server-everything. Needs `pnpm build` first.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
let prefix: string;
let home: string;

beforeAll(async () => {
  work = await realpath(await mkdtemp(path.join(tmpdir(), 'mcpkit-cli-global-')));
  home = path.join(work, 'home');
  prefix = path.join(home, '.local');
  await mkdir(home);
}, 30_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('mcpkit from its tarballs with npm install -g', () => {
  it('install-cli installs mcpkit into a user prefix; --version and tools run from its bin with nothing else', async () => {
    const { stdout } = await run(
      process.execPath,
      [path.join(root, 'scripts/install-cli.mjs'), '--prefer-offline', '--ignore-scripts'],
      {
        cwd: root,
        timeout: 300_000,
        env: {
          ...process.env,
          HOME: home,
          NPM_CONFIG_PREFIX: prefix,
          npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
          npm_config_loglevel: 'error',
          npm_config_update_notifier: 'false',
        },
      },
    );
    expect(stdout).toContain(`mcpkit 0.1.0 is in ${path.join(prefix, 'bin')}`);
    const mcpkit = path.join(prefix, 'bin', 'mcpkit');
    expect(existsSync(mcpkit)).toBe(true);
    // The @mcpkit packages it runs are the installed tarballs, not the workspace.
    const installed = await readdir(path.join(prefix, 'lib', 'node_modules', '@mcpkit'));
    expect(installed).toEqual(expect.arrayContaining(['manager', 'client', 'gateway', 'config']));
    // The CLI's optional peer for `serve --redis` comes with it (a clone has no registry).
    expect(installed).toContain('gateway-redis');
    expect(installed).not.toContain('ai-sdk');

    // A folder of its own, a PATH with only node on it, the fresh HOME.
    const cwd = path.join(work, 'project');
    await mkdir(cwd);
    const config = path.join(cwd, 'demo.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
      }),
    );
    const env = { PATH: path.dirname(process.execPath), HOME: home, NO_COLOR: '1' };
    const version = await run(mcpkit, ['--version'], { cwd, env, timeout: 30_000 });
    expect(version.stdout).toBe('0.1.0\n');
    const tools = await run(mcpkit, ['--strict-config', '-c', config, 'tools'], {
      cwd,
      env,
      timeout: 60_000,
    });
    expect(tools.stdout).toMatch(/^everything \(\d+ tools\)$/m);
    expect(tools.stdout).toContain('  get-sum(a: number, b: number)\n');
    const call = await run(mcpkit, ['-c', config, 'call', 'everything', 'get-sum', 'a=2', 'b=3'], {
      cwd,
      env,
      timeout: 60_000,
    });
    expect(call.stdout).toContain('5');

    // `list` runs from the installed dist/list.cjs (the config code bundled in it); an invalid
    // entry's messages load zod, which that file finds as a dependency of the CLI itself.
    const invalid = path.join(work, 'invalid');
    await mkdir(invalid);
    await writeFile(
      path.join(invalid, '.mcp.json'),
      JSON.stringify({ mcpServers: { empty: { command: '' } } }),
    );
    const list = await run(mcpkit, ['list'], { cwd: invalid, env, timeout: 30_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(list.stderr).toContain('mcpServers.empty.command: expected a non-empty command');
    expect(list.code).toBe(1);

    // OTLP export from the installed bin reaches a receiver: the CLI's SDK and @mcpkit/otel
    // (a package of its own there) see one OpenTelemetry API (before: two, and no span left).
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(`${req.url} ${req.headers['content-type']}`);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      await run(mcpkit, ['-c', config, 'call', 'everything', 'get-sum', 'a=2', 'b=3'], {
        cwd,
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
        timeout: 60_000,
      });
      expect(received).toContain('/v1/traces application/x-protobuf');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }

    // `serve --redis` from the installed bin finds its optional peer beside it and reaches a
    // real redis-server: /readyz answers 200 only when the store answers.
    const redis = await startRedis();
    const tokenFile = path.join(work, 'serve-token');
    await writeFile(tokenFile, 'pack-test-token-0123456789\n', { mode: 0o600 });
    const serve = spawn(
      mcpkit,
      [
        '-c',
        config,
        'serve',
        '--http',
        '127.0.0.1:0',
        '--token-file',
        tokenFile,
        '--redis',
        `unix://${redis.socket}`,
      ],
      { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise((r) => serve.once('exit', r));
    try {
      let stderr = '';
      const url = await new Promise<URL>((resolve, reject) => {
        serve.stderr!.on('data', (c: Buffer) => {
          stderr += c.toString();
          const match = /listening on (\S+)/.exec(stderr);
          if (match) resolve(new URL(match[1]!));
        });
        serve.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${stderr}`)));
      });
      const ready = await fetch(new URL('/readyz', url), {
        headers: { Authorization: 'Bearer pack-test-token-0123456789' },
      });
      expect(ready.status, await ready.clone().text()).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true });
    } finally {
      if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGTERM');
      await exited;
      await redis.close();
    }
  }, 400_000);
});
