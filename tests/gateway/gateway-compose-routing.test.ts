import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { configFile } from './compose-support.js';
import { type HttpGateway, resultText, startHttpGateway } from './gateway-process.js';

/**
 * A backend's request (elicitation) during a call made through a named endpoint reaches
 * that endpoint's client: each endpoint is a gateway of its own over one manager, and the
 * backend's request is routed among the calls of all of them. The built CLI, server-everything
 * over stdio, an SDK v1 client on /mcp/team.
 */
const TOKEN = 'compose-routing-token-0123456789abcdef';
const config = configFile({
  servers: { everything: { prefix: 'ev' } },
  endpoints: { team: { tools: ['trigger-elicitation-request'] } },
});
let gateway: HttpGateway;
let client: ClientV1 | undefined;
beforeAll(async () => {
  gateway = await startHttpGateway(
    { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
    ['--token', TOKEN, '--gateway-config', config.file],
  );
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.close();
  config.cleanup();
});

describe('server→client requests through a named endpoint', () => {
  it('an elicitation during a call on /mcp/team reaches that client (not refused as outside any call)', async () => {
    const asked: string[] = [];
    client = new ClientV1(
      { name: 'team-client', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return {
        action: 'accept',
        content: { color: 'green', name: 'Ada', email: 'ada@example.com' },
      };
    });
    await client.connect(
      new HttpV1(new URL(`${gateway.url.href}/team`), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'ev__trigger-elicitation-request',
    ]);
    const result = await client.callTool({
      name: 'ev__trigger-elicitation-request',
      arguments: {},
    });
    expect(asked.length).toBe(1);
    expect(resultText(result)).toContain('accept');
  });
});
