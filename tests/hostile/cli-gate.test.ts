import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type RecordingServer,
  recordingServer,
  runCli,
  type Sandbox,
  sandbox,
  startCli,
} from './cli-harness.js';

/**
 * Finding 4 of issue #10: `mcpkit login` sent initialize, discovery requests and a client
 * registration to a project server nobody approved, and when registration failed it stayed
 * alive with its loopback listener open. Now one check (`assertMayContact`) stands between
 * the config and every transport, headers helper and OAuth provider, and login is bounded.
 */
let box: Sandbox;
let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  box?.[Symbol.dispose]();
});

function write(file: string, content: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(content));
}

describe('mcpkit contacts no server that is not enabled', () => {
  it('pending, rejected, blocked and disabled servers get zero requests and no process from any command', async () => {
    box = sandbox();
    server = await recordingServer();
    const spawned = path.join(box.dir, 'spawned');
    const helperRan = path.join(box.dir, 'helper-ran');
    const userDir = path.join(box.home, '.config/mcpkit');
    write(path.join(box.cwd, '.mcp.json'), {
      mcpServers: {
        'c-http': { type: 'http', url: `${server.url}/pending` },
        'c-helper': {
          type: 'http',
          url: `${server.url}/helper`,
          headersHelper: `touch ${helperRan}`,
        },
        'c-stdio': { command: 'sh', args: ['-c', `touch ${spawned}`] },
        'c-rejected': { type: 'sse', url: `${server.url}/rejected` },
      },
    });
    write(path.join(userDir, 'mcp.json'), {
      mcpServers: {
        'c-blocked': { type: 'http', url: `${server.url}/blocked` },
        'c-disabled': { type: 'http', url: `${server.url}/disabled`, disabled: true },
      },
    });
    write(path.join(userDir, 'settings.json'), {
      deniedMcpServers: [{ serverName: 'c-blocked' }],
    });
    const env = box.env;
    const cwd = box.cwd;
    expect((await runCli(['reject', 'c-rejected'], { env, cwd })).code).toBe(0);

    const names = ['c-http', 'c-helper', 'c-stdio', 'c-rejected', 'c-blocked', 'c-disabled'];
    const statusOf: Record<string, RegExp> = {
      'c-http': /waits for approval: run "mcpkit approve c-http"/,
      'c-helper': /waits for approval/,
      'c-stdio': /waits for approval/,
      'c-rejected': /was rejected: run "mcpkit approve c-rejected"/,
      'c-blocked': /blocked by policy/,
      'c-disabled': /is disabled in /,
    };
    // Every command that takes a server name, for every server; all at once (they only
    // read the config and the recorder only counts).
    const runs = names.flatMap((name) => [
      runCli(['login', name, '--no-browser'], { env, cwd }).then((r) => {
        if (name === 'c-stdio') expect(r.code).not.toBe(0);
        else {
          expect(r.code, r.stderr).toBe(1);
          expect(r.stderr).toMatch(statusOf[name]!);
          expect(r.stderr).toContain('(nothing was sent to it)');
        }
      }),
      runCli(['call', name, 'anything'], { env, cwd }).then((r) => {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(statusOf[name]!);
      }),
    ]);
    for (const args of [
      ['logout', 'c-http'],
      ['read', 'c-http', 'file:///x'],
      ['prompt', 'c-http', 'p'],
    ])
      runs.push(runCli(args, { env, cwd }).then((r) => expect(r.code).toBe(1)));
    for (const command of ['servers', 'tools', 'resources', 'prompts'])
      runs.push(
        runCli([command], { env, cwd }).then((r) => {
          // `servers` says it in its table, the others on stderr.
          for (const name of names) expect(r.stdout + r.stderr).toMatch(statusOf[name]!);
        }),
      );
    await Promise.all(runs);
    const servers = await runCli(['servers', '--json'], { env, cwd });
    const rows = JSON.parse(servers.stdout).servers as Array<{ name: string; status: string }>;
    expect(rows.map((r) => [r.name, r.status]).sort()).toEqual(
      [
        ['c-blocked', 'blocked'],
        ['c-disabled', 'disabled'],
        ['c-helper', 'pending-approval'],
        ['c-http', 'pending-approval'],
        ['c-rejected', 'rejected'],
        ['c-stdio', 'pending-approval'],
      ].sort(),
    );

    expect(server.requests).toEqual([]);
    expect(existsSync(spawned), 'a pending stdio server was spawned').toBe(false);
    expect(existsSync(helperRan), "a pending server's headersHelper ran").toBe(false);
  }, 240_000);
});

/**
 * An MCP server behind OAuth whose authorization server's registration endpoint fails (or
 * never answers): the metadata documents are real, the failure is on demand.
 */
async function oauthServer(registration: 'fails' | 'hangs'): Promise<RecordingServer> {
  const s: RecordingServer = await recordingServer((req, res) => {
    const base = s.url;
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = req.url ?? '';
    if (url.startsWith('/.well-known/oauth-protected-resource'))
      return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (
      url.startsWith('/.well-known/oauth-authorization-server') ||
      url.startsWith('/.well-known/openid-configuration')
    )
      return json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    if (url === '/register') {
      if (registration === 'hangs') return; // never answered
      return json(500, { error: 'server_error', error_description: 'registration is broken' });
    }
    res
      .writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      })
      .end();
  });
  return s;
}

describe('mcpkit login ends by itself', () => {
  it('a login whose client registration fails exits 1 (the loopback listener closed, no hang)', async () => {
    box = sandbox();
    server = await oauthServer('fails');
    const config = JSON.stringify({
      mcpServers: { web: { type: 'http', url: `${server.url}/mcp` } },
    });
    const run = await runCli(['--strict-config', '-c', config, 'login', 'web', '--no-browser'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server "web"');
    expect(server.requests.some((r) => r.url === '/register')).toBe(true);
  });

  it('a login whose registration never answers ends at --login-timeout with a timeout error', async () => {
    box = sandbox();
    server = await oauthServer('hangs');
    const config = JSON.stringify({
      mcpServers: { web: { type: 'http', url: `${server.url}/mcp` } },
    });
    const run = startCli(
      ['--strict-config', '-c', config, 'login', 'web', '--no-browser', '--login-timeout', '1500'],
      { env: box.env, cwd: box.cwd },
    );
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /server "web": .*did not finish within 1\.5 s; run "mcpkit login web" again.*\(--login-timeout <ms> allows longer\)/,
    );
    expect(server.requests.some((r) => r.url === '/register')).toBe(true);
  });
});
