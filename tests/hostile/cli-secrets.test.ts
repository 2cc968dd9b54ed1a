import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RecordingServer,
  recordingServer,
  runCli,
  type Sandbox,
  sandbox,
} from './cli-harness.js';

/**
 * Finding 9 of issue #10: URL user info and query values (`user:PASS@…?api_key=…`) showed
 * in the `servers` table, `--json` and error messages, `${VAR}` expansions included; `list
 * --json` printed header and env values. The server here answers 500: the transport's
 * error message then names the URL, whose password and `api_key` the CLI hides by their
 * place in it. (A server that echoes a request back in its body shows what it was sent:
 * that body is the server's data, which the CLI does not search — see data-is-data.)
 */
const PASSWORD = 'PASSWORD-31337';
const API_KEY = 'KEY-abc-123456';
const FROM_ENV = 'tok-SECRET-from-env-998877';
const ENV_VALUE = 'env-value-SECRET-4242';
const SECRETS = [PASSWORD, API_KEY, FROM_ENV, ENV_VALUE];

let box: Sandbox;
let echo: RecordingServer;
let args: string[];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  box = sandbox();
  echo = await recordingServer((_req, res) =>
    res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream refused the request'),
  );
  const config = box.file('secrets.json', {
    mcpServers: {
      userinfo: { type: 'http', url: `http://alice:${PASSWORD}@127.0.0.1:${echo.port}/mcp` },
      chatty: {
        type: 'http',
        url: `${echo.url}/mcp?api_key=${API_KEY}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} for the config to expand
        headers: { 'X-Api-Token': '${MY_TOKEN}' },
      },
      local: { command: 'node', args: ['-e', 'process.exit(9)'], env: { SECRET_ENV: ENV_VALUE } },
      // Not a credential name: shown as written.
      plain: { command: 'node', args: ['-e', 'process.exit(9)'], env: { NODE_ENV: 'production' } },
    },
  });
  args = ['--strict-config', '-c', config];
  env = { ...box.env, MY_TOKEN: FROM_ENV };
});
afterAll(async () => {
  await echo.close();
  box[Symbol.dispose]();
});

const cli = (...rest: string[]) => runCli([...args, ...rest], { env, cwd: box.cwd });
const leaked = (r: { stdout: string; stderr: string }) =>
  SECRETS.filter((s) => r.stdout.includes(s) || r.stderr.includes(s));

describe('mcpkit prints no secret unless --show-secrets', () => {
  it('servers, servers --json, list --json, tools and call: no secret in any output', async () => {
    const runs = await Promise.all([
      cli('servers'),
      cli('--json', 'servers'),
      cli('--json', 'list'),
      cli('list'),
      cli('tools'),
      cli('call', 'chatty', 'x'),
      cli('call', 'userinfo', 'x'),
    ]);
    for (const r of runs) expect(leaked(r)).toEqual([]);
    const [servers, serversJson] = runs;
    // The requests did carry the secrets, and the output still names each server and why
    // it failed.
    expect(echo.requests.some((r) => r.headers['x-api-token'] === FROM_ENV)).toBe(true);
    expect(servers!.stdout).toMatch(/chatty\s+failed: .*500/);
    expect(servers!.stdout).toContain('api_key=***');
    const rows = JSON.parse(serversJson!.stdout).servers;
    expect(rows.find((r: { name: string }) => r.name === 'chatty').status).toBe('failed');
    const list = JSON.parse(runs[2]!.stdout).servers;
    expect(list.find((s: { name: string }) => s.name === 'plain').config.env).toEqual({
      NODE_ENV: 'production',
    });
  });

  it('--show-secrets prints them', async () => {
    const [servers, list] = await Promise.all([
      // JSON: the table cuts long errors to its width.
      cli('--show-secrets', '--json', 'servers'),
      cli('--show-secrets', '--json', 'list'),
    ]);
    // The error names the URL whole.
    expect(servers.stdout + servers.stderr).toContain(API_KEY);
    expect(list.stdout).toContain(PASSWORD);
    expect(list.stdout).toContain(ENV_VALUE);
    expect(list.stdout).toContain(FROM_ENV);
  });
});
