// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests write ${VAR} templates into config files
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './config-sandbox.js';

const SECRETS = ['hunter2-PASS', 'qv-api-KEY-77', 'Bearer sk-live-header', 'env-TOKEN-9'];

async function withSecrets() {
  const box = sandbox();
  box.write(path.join(box.userDir, 'mcp.json'), {
    mcpServers: {
      api: {
        type: 'http',
        url: 'https://alice:${PW}@api.example/mcp?api_key=qv-api-KEY-77',
        headers: { Authorization: 'Bearer sk-live-header' },
      },
      tool: { command: 'tool-server', env: { TOKEN: 'env-TOKEN-9' } },
    },
  });
  return box;
}

describe('mcpkit list hides secrets (issue #10 finding 9, config side)', () => {
  it('list and list --json printed header values, env values, URL passwords and query values verbatim', async () => {
    await using box = await withSecrets();
    for (const args of [['list'], ['list', '--json']]) {
      const r = await box.cli(args, { env: { PW: 'hunter2-PASS' } });
      expect(r.code).toBe(0);
      for (const secret of SECRETS) {
        expect(r.stdout).not.toContain(secret);
        expect(r.stderr).not.toContain(secret);
      }
    }
    const json = JSON.parse(
      (await box.cli(['list', '--json'], { env: { PW: 'hunter2-PASS' } })).stdout,
    );
    const api = json.servers.find((s: { name: string }) => s.name === 'api');
    expect(api.config.url).toBe('https://***:***@api.example/mcp?api_key=***');
    expect(api.config.headers).toEqual({ Authorization: '***' });
    const tool = json.servers.find((s: { name: string }) => s.name === 'tool');
    expect(tool.config.env).toEqual({ TOKEN: '***' });
  });

  it('the approval record in list --json (the URL as written in .mcp.json) is redacted too', async () => {
    await using box = sandbox();
    box.write(path.join(box.repo, '.mcp.json'), {
      mcpServers: { p: { type: 'http', url: 'https://p.example/mcp?key=abc&page=2' } },
    });
    const json = JSON.parse((await box.cli(['list', '--json'])).stdout);
    // A credential query value is hidden; the rest of the URL is the URL.
    expect(json.servers[0].config.url).toBe('https://p.example/mcp?key=***&page=2');
    expect(json.servers[0].approval.url).toBe('https://p.example/mcp?key=***&page=2');
    expect(json.servers[0].approval.digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
