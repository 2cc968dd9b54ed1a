import { describe, expect, it } from 'vitest';
import { checkGatewayChain, MAX_GATEWAY_DEPTH, runsThisGateway } from './self-reference.js';

const bins = new Set(['/opt/mcpkit-cli/dist/bin.js']);
const runs = (command: string, args: string[], type?: string) =>
  runsThisGateway({ config: { ...(type ? { type } : {}), command, args } as never }, '/work', bins);

describe('runsThisGateway: an entry that runs this CLI\'s "serve"', () => {
  it.each([
    ['mcpkit', ['serve']],
    ['/usr/local/bin/mcpkit', ['serve', '--http', '8765']],
    ['mcpkit', ['-c', 'servers.json', 'serve']],
    ['mcpkit', ['--json', '--config=x.json', 'serve']],
    ['mcpkit.cmd', ['serve']],
    ['node', ['/opt/mcpkit-cli/dist/bin.js', 'serve']],
    ['node', ['--no-warnings', '/opt/mcpkit-cli/dist/bin.js', '-s', 'a', 'serve']],
    ['/usr/bin/node', ['/p/node_modules/mcpkit/dist/bin.js', 'serve']],
    ['npx', ['-y', 'mcpkit', 'serve']],
    ['npx', ['mcpkit@0.1.0', 'serve']],
    ['pnpm', ['dlx', 'mcpkit', 'serve']],
    ['npm', ['exec', 'mcpkit', '--', 'serve']],
    ['bunx', ['mcpkit', 'serve']],
  ])('%s %j', (command, args) => {
    expect(runs(command, args)).toBe(true);
  });

  it.each([
    ['mcpkit', ['call', 'serve', 'x']],
    ['mcpkit', ['-c', 'serve', 'list']],
    ['mcpkit', ['servers']],
    ['mcpkit-other', ['serve']],
    ['node', ['/opt/other/dist/bin.js', 'serve']],
    ['npx', ['-y', '@acme/mcpkit', 'serve']],
    ['npx', ['mcpkit-proxy', 'serve']],
    ['pnpm', ['install', 'mcpkit', 'serve']],
    ['sh', ['-c', 'mcpkit serve']],
  ])('not %s %j', (command, args) => {
    expect(runs(command, args)).toBe(false);
  });

  it('an HTTP entry is never one (it starts no process)', () => {
    expect(
      runsThisGateway({ config: { type: 'http', url: 'http://127.0.0.1:1/mcp' } as never }, '/'),
    ).toBe(false);
  });
});

describe('checkGatewayChain', () => {
  it('passes its own identity on to the children', () => {
    expect(checkGatewayChain(undefined, 'aaaa')).toEqual({ ok: true, next: 'aaaa' });
    expect(checkGatewayChain('bbbb', 'aaaa')).toEqual({ ok: true, next: 'bbbb,aaaa' });
  });

  it('refuses when its identity is in the chain (a gateway below itself)', () => {
    const r = checkGatewayChain('bbbb, aaaa', 'aaaa');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain('already runs above itself');
  });

  it(`refuses a chain already ${MAX_GATEWAY_DEPTH} long, whatever its pieces hold`, () => {
    const chain = Array.from({ length: MAX_GATEWAY_DEPTH }, (_, i) => `x${i}`).join(',');
    const r = checkGatewayChain(chain, 'aaaa');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(`at most ${MAX_GATEWAY_DEPTH}`);
    expect(checkGatewayChain(chain.split(',').slice(1).join(','), 'aaaa').ok).toBe(true);
  });
});
