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
 * --json` printed header and env values. The server here answers 500 and echoes the
 * request's URL and headers in its body, as chatty proxies do: the transport's error
 * message then quotes the secrets, and the CLI's scrubber has to catch them.
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
  echo = await recordingServer((req, res) =>
    res
      .writeHead(500, { 'content-type': 'text/plain' })
      .end(`upstream refused ${req.url} with headers ${JSON.stringify(req.headers)}`),
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
    // The requests did carry the secrets (so the echo did quote them), and the output
    // still names each server and why it failed.
    expect(echo.requests.some((r) => r.headers['x-api-token'] === FROM_ENV)).toBe(true);
    expect(servers!.stdout).toMatch(/chatty\s+failed: .*500/);
    expect(servers!.stdout).toContain('api_key=***');
    const rows = JSON.parse(serversJson!.stdout).servers;
    expect(rows.find((r: { name: string }) => r.name === 'chatty').status).toBe('failed');
  });

  it('--show-secrets prints them', async () => {
    const [servers, list] = await Promise.all([
      // JSON: the table cuts long errors to its width.
      cli('--show-secrets', '--json', 'servers'),
      cli('--show-secrets', '--json', 'list'),
    ]);
    expect(servers.stdout + servers.stderr).toContain(FROM_ENV);
    expect(servers.stdout + servers.stderr).toContain(API_KEY);
    expect(list.stdout).toContain(PASSWORD);
    expect(list.stdout).toContain(ENV_VALUE);
    expect(list.stdout).toContain(FROM_ENV);
  });
});
