import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './config-sandbox.js';

/** A listener on 127.0.0.1 that only records who reached it (and answers 404). */
async function listener() {
  const hits: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hits,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const spellings = (port: number) => [
  `http://127.0.0.%31:${port}/mcp`,
  `http://127.0.0.1:${port}\\mcp`,
  `http://127.0.0.1:${port}`,
  `http://2130706433:${port}/mcp`,
  `http://127.0.0.1.:${port}/mcp`,
  `http://127．0．0．1:${port}/mcp`,
  `http://127.0.\t0.1:${port}/mcp`,
  `http://u@127.0.0.1:${port}/mcp`,
];

describe('a denied listener is never reached, whatever the URL spelling (issue #10 finding 2)', () => {
  it('control: without the deny rule, servers does reach the listener', async () => {
    await using box = sandbox();
    await using target = await listener();
    box.write(path.join(box.userDir, 'mcp.json'), {
      mcpServers: { s: { type: 'http', url: `http://2130706433:${target.port}/mcp` } },
    });
    await box.cli(['servers']);
    expect(target.hits.length).toBeGreaterThan(0);
  });

  it('with deny http://127.0.0.1:PORT/*, servers sends no request for any spelling; list says why', async () => {
    await using box = sandbox();
    await using target = await listener();
    const urls = spellings(target.port);
    box.write(path.join(box.userDir, 'settings.json'), {
      deniedMcpServers: [{ serverUrl: `http://127.0.0.1:${target.port}/*` }],
    });
    box.write(path.join(box.userDir, 'mcp.json'), {
      mcpServers: Object.fromEntries(urls.map((url, i) => [`s${i}`, { type: 'http', url }])),
    });
    await box.cli(['servers']);
    expect(target.hits).toEqual([]);
    const list = await box.cli(['list']);
    const [header, ...rows] = list.stdout.trim().split('\n');
    expect(header).toMatch(/^NAME\s+SCOPE\s+STATUS\s+FILE$/);
    expect(rows).toHaveLength(urls.length);
    for (const row of rows)
      expect(row).toMatch(
        /blocked by policy: (denied by deniedMcpServers\[0\]|its URL .* has user info)/,
      );
  });

  it('allow http://*.corp.example no longer admits http://127.0.0.1:PORT\\@mcp.corp.example/mcp', async () => {
    await using box = sandbox();
    await using target = await listener();
    box.write(path.join(box.userDir, 'settings.json'), {
      allowedMcpServers: [{ serverUrl: 'http://*.corp.example' }],
    });
    box.write(path.join(box.userDir, 'mcp.json'), {
      mcpServers: {
        s: { type: 'http', url: `http://127.0.0.1:${target.port}\\@mcp.corp.example/mcp` },
      },
    });
    await box.cli(['servers']);
    expect(target.hits).toEqual([]);
    expect((await box.cli(['list'])).stdout).toMatch(
      /s\s+user\s+blocked by policy: not in the allow list/,
    );
  });
});
