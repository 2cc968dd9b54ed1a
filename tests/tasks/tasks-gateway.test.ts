import { McpClient, TASKS_EXTENSION } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessGateway, startInProcessHttpGateway } from '../gateway/in-process-gateway.js';
import { SchemaCheckedTransport } from '../support/schema-check.js';
import { checkExtensionMessages } from './ext-schema.js';
import { startTasksServer } from './support.js';

/**
 * The tasks extension through `@mcpkit/gateway` (in this process, over HTTP) in front of the
 * tasks fixture (a child process over HTTP): a caller that declared the extension gets the
 * backend's task handle and follows it through the gateway; one that did not gets the final
 * result of a call the gateway awaited.
 */
let backend: { url: string; stop: () => Promise<void> };
let gw: InProcessGateway;
beforeAll(async () => {
  backend = await startTasksServer();
  gw = await startInProcessHttpGateway({ tasks: { type: 'http', url: backend.url } });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await backend?.stop();
});

async function caller(
  tasks: boolean,
): Promise<{ client: McpClient; checked: SchemaCheckedTransport }> {
  const checked = new SchemaCheckedTransport(
    new StreamableHttpTransport({ url: gw.url }),
    'received',
  );
  const client = new McpClient({
    era: 'modern',
    eraCache: false,
    tasks,
    handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Lin' } }) },
  });
  await client.connect(checked);
  return { client, checked };
}

/** The gateway's name for a backend tool. */
async function served(client: McpClient, tool: string): Promise<string> {
  const names = (await client.listTools()).map((t) => t.name);
  const name = names.find((n) => n === tool || n.endsWith(`__${tool}`) || n.endsWith(`_${tool}`));
  if (!name) throw new Error(`no ${tool} among ${names.join(', ')}`);
  return name;
}

describe('the tasks extension through the gateway', () => {
  it('a declaring caller gets the backend task handle and follows it through the gateway (input round included)', async () => {
    const { client, checked } = await caller(true);
    try {
      expect(
        (client.serverCapabilities as { extensions?: Record<string, unknown> }).extensions,
      ).toMatchObject({ [TASKS_EXTENSION]: {} });
      const ids: string[] = [];
      const result = await client.callTool(
        { name: await served(client, 'ask_name') },
        { ontask: (t) => ids.push(t.taskId) },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Lin!' }]);
      expect(ids).toHaveLength(1);
      // The handle is the backend's own: its id and its poll interval, and the gateway
      // answers tasks/get for it from the backend.
      const handle = checked.received.find(
        (r) =>
          r.request === 'tools/call' &&
          (r.message as { result?: { resultType?: string } }).result?.resultType === 'task',
      );
      expect((handle!.message as { result: unknown }).result).toMatchObject({
        taskId: ids[0],
        pollIntervalMs: 20,
      });
      expect(await client.getExtensionTask(ids[0]!)).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'Hello, Lin!' }] },
      });
      const { checked: counts, problems } = checkExtensionMessages(checked.received);
      expect(problems).toEqual([]);
      expect(counts.CreateTaskResult).toBe(1);
      expect(counts.UpdateTaskResult).toBe(1);
      expect(counts.GetTaskResult).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('a caller that did not declare the extension gets the final result, the task awaited by the gateway', async () => {
    const { client, checked } = await caller(false);
    try {
      const messages: string[] = [];
      const release = await served(client, 'release');
      const result = await client.callTool(
        { name: await served(client, 'long_job'), arguments: { steps: 2, gate: 'gw' } },
        {
          onprogress: (p) => {
            messages.push(p.message!);
            const m = /^step (\d) of 2$/.exec(p.message ?? '');
            if (m) void client.callTool({ name: release, arguments: { gate: `gw:${m[1]}` } });
          },
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'done 2' }]);
      // The backend's statusMessages reached this caller as progress.
      expect(messages).toEqual(['starting', 'step 1 of 2', 'step 2 of 2']);
      const { checked: counts } = checkExtensionMessages(checked.received);
      expect(counts.CreateTaskResult ?? 0).toBe(0);
      expect(counts.GetTaskResult ?? 0).toBe(0);
    } finally {
      await client.close();
    }
  });
});
