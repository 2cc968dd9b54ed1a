import { McpClient, TASKS_EXTENSION, TaskEndedError } from '@mcpkit/client';
import type { JsonRpcNotification, RpcError } from '@mcpkit/jsonrpc';
import type { ElicitRequestParams } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SchemaCheckedTransport } from '../support/schema-check.js';
import { checkExtensionMessages } from './ext-schema.js';
import { tasksFixture, until, useTasksServer } from './support.js';

/**
 * The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) between McpClient and a
 * server built on @mcpkit/server (tests/fixtures/tasks-server.mjs, a child process), over
 * Streamable HTTP and stdio. Every extension message the server sends is checked against
 * the extension's JSON Schema.
 */
const http = useTasksServer();

const kinds = {
  'streamable-http': () => new StreamableHttpTransport({ url: http.url }),
  stdio: () => new StdioTransport({ command: process.execPath, args: [tasksFixture, 'stdio'] }),
};

describe.each(Object.keys(kinds) as Array<keyof typeof kinds>)(
  'tasks extension over %s',
  (kind) => {
    const elicited: ElicitRequestParams[] = [];
    const notes: JsonRpcNotification[] = [];
    let client: McpClient;
    let checked: SchemaCheckedTransport;

    beforeAll(async () => {
      checked = new SchemaCheckedTransport(kinds[kind](), 'received');
      client = new McpClient({
        name: 'tasks',
        era: 'modern',
        eraCache: false,
        handlers: {
          elicitation: async (params) => {
            elicited.push(params);
            return { action: 'accept', content: { name: 'Ada' } };
          },
        },
      });
      client.onnotification = (n) => notes.push(n);
      await client.connect(checked);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
    });

    it('the server declares the extension in server/discover', () => {
      expect(client.era).toBe('modern');
      expect(
        (client.serverCapabilities as { extensions?: Record<string, unknown> }).extensions,
      ).toEqual({ [TASKS_EXTENSION]: {} });
    });

    it('a long task: one awaited call, every statusMessage to onprogress, the final result', async () => {
      const messages: string[] = [];
      const ids: string[] = [];
      const gate = `${kind}-long`;
      const result = await client.callTool(
        { name: 'long_job', arguments: { steps: 3, gate } },
        {
          tasks: true,
          ontask: (task) => ids.push(task.taskId),
          onprogress: (p) => {
            messages.push(p.message!);
            // Each step waits for its release: the next status comes after this one was seen.
            const m = /^step (\d) of 3$/.exec(p.message ?? '');
            if (m)
              void client.callTool({ name: 'release', arguments: { gate: `${gate}:${m[1]}` } });
          },
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'done 3' }]);
      expect(messages).toEqual(['starting', 'step 1 of 3', 'step 2 of 3', 'step 3 of 3']);
      expect(ids).toHaveLength(1);
      expect(ids[0]).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      const task = await client.getExtensionTask(ids[0]!);
      expect(task).toMatchObject({ taskId: ids[0], status: 'completed', pollIntervalMs: 20 });
    });

    it('the same tool without the extension declared: awaited by the server, steps as progress', async () => {
      const messages: string[] = [];
      const gate = `${kind}-inplace`;
      const result = await client.callTool(
        { name: 'long_job', arguments: { steps: 2, gate } },
        {
          onprogress: (p) => {
            messages.push(p.message!);
            const m = /^step (\d) of 2$/.exec(p.message ?? '');
            if (m)
              void client.callTool({ name: 'release', arguments: { gate: `${gate}:${m[1]}` } });
          },
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'done 2' }]);
      expect(messages).toEqual(['starting', 'step 1 of 2', 'step 2 of 2']);
    });

    it('an input_required round goes to the elicitation handler, answered by tasks/update', async () => {
      const before = elicited.length;
      const result = await client.callTool({ name: 'ask_name' }, { tasks: true });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      // Asked once, though several polls may have shown the same request.
      expect(elicited.slice(before)).toEqual([
        {
          mode: 'form',
          message: 'Please enter your name.',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
      ]);
      const updates = checked.received.filter((r) => r.request === 'tasks/update');
      expect(updates.length).toBeGreaterThanOrEqual(1);
    });

    it("aborting the caller's signal sends tasks/cancel; the work sees its signal abort", async () => {
      const controller = new AbortController();
      const gate = `${kind}-cancel`;
      let taskId: string | undefined;
      const call = client.callTool(
        { name: 'until_cancelled', arguments: { gate } },
        {
          tasks: true,
          signal: controller.signal,
          ontask: (task) => {
            taskId = task.taskId;
          },
          // Cancel once the task runs (its first status).
          onprogress: (p) => {
            if (p.message === 'running') controller.abort(new Error('the user gave up'));
          },
        },
      );
      await expect(call).rejects.toThrow('the user gave up');
      const cancelled = await client.callTool({ name: 'was_cancelled', arguments: { gate } });
      expect(cancelled.content).toEqual([{ type: 'text', text: 'true' }]);
      expect(await client.getExtensionTask(taskId!)).toMatchObject({ status: 'cancelled' });
      expect(checked.received.filter((r) => r.request === 'tasks/cancel')).toHaveLength(1);
    });

    it('resumeTask(taskId) from another client gets the result; notifications/tasks on subscriptions/listen', async () => {
      const gate = `${kind}-resume`;
      // A first client starts the call and is closed while the task runs.
      const first = new McpClient({ era: 'modern', eraCache: false, tasks: true });
      await first.connect(kinds[kind]());
      let taskId: string | undefined;
      // Its call fails when the client closes; the task goes on on the server.
      const abandoned = first
        .callTool(
          { name: 'gated', arguments: { gate } },
          {
            ontask: (t) => {
              taskId = t.taskId;
            },
          },
        )
        .catch((e: unknown) => e);
      await until(() => taskId !== undefined, 'the task handle');
      if (kind === 'stdio') {
        // A stdio server ends with its client: its tasks end with it, and a new process knows none.
        await first.close();
        await abandoned;
        const gone = await client.resumeTask(taskId!).catch((e: unknown) => e);
        expect(TaskEndedError.isInstance(gone) && gone.status).toBe('unknown');
        return;
      }
      await first.close();
      await abandoned;
      // The other client follows the same task: by polling, and on a listen stream.
      const listener = new McpClient({ era: 'modern', eraCache: false, tasks: true });
      const pushed: JsonRpcNotification[] = [];
      listener.onnotification = (n) => pushed.push(n);
      const listened = new SchemaCheckedTransport(kinds[kind](), 'received');
      await listener.connect(listened);
      const sub = await listener.listen({ taskIds: [taskId!, 'not-a-task'] });
      expect(sub.notifications).toEqual({ taskIds: [taskId] });
      const resumed = client.resumeTask(taskId!);
      await client.callTool({ name: 'release', arguments: { gate } });
      expect((await resumed).content).toEqual([{ type: 'text', text: `released ${gate}` }]);
      await until(
        () => pushed.some((n) => (n.params as { status?: string })?.status === 'completed'),
        'notifications/tasks',
      );
      const done = pushed.find((n) => (n.params as { status?: string }).status === 'completed')!;
      expect(done.method).toBe('notifications/tasks');
      expect(done.params).toMatchObject({
        taskId,
        result: { content: [{ type: 'text', text: `released ${gate}` }] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': sub.id },
      });
      const listenerChecked = checkExtensionMessages(listened.received);
      await sub.close();
      await listener.close();
      expect(listenerChecked.problems).toEqual([]);
      expect(listenerChecked.checked.TaskStatusNotification).toBeGreaterThanOrEqual(1);
    });

    it('a client that did not declare the extension gets -32021 from tasks/get; an unknown id is unknown', async () => {
      const error = (await client
        .call('tasks/get', { taskId: 'nope' }, z.object({}).loose())
        .catch((e: unknown) => e)) as RpcError;
      expect(error.rpcCode).toBe(-32021);
      expect(error.data).toEqual({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
      const unknown = await client
        .resumeTask('00000000-0000-4000-8000-000000000000')
        .catch((e) => e);
      expect(TaskEndedError.isInstance(unknown)).toBe(true);
      expect(unknown).toMatchObject({ code: 'MCPKIT_TASK_ENDED', status: 'unknown' });
    });

    it('a plain tool stays a plain result with the extension declared', async () => {
      const result = await client.callTool({ name: 'plain' }, { tasks: true });
      expect(result.content).toEqual([{ type: 'text', text: 'plain result' }]);
    });

    it("every extension message the server sent matches the extension's schema", () => {
      const { checked: counts, problems } = checkExtensionMessages(checked.received);
      expect(problems).toEqual([]);
      // long_job, ask_name, until_cancelled (the resumed task was created by another client).
      expect(counts.CreateTaskResult).toBe(3);
      expect(counts.GetTaskResult).toBeGreaterThanOrEqual(4);
      expect(counts.UpdateTaskResult).toBeGreaterThanOrEqual(1);
      expect(counts.CancelTaskResult).toBe(1);
    });
  },
);

it('a 2025-11-25 client calls a task tool as a plain call: the input round reaches its handler as elicitation/create', async () => {
  const client = new McpClient({
    era: 'legacy',
    eraCache: false,
    tasks: true,
    handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Old' } }) },
  });
  await client.connect(new StreamableHttpTransport({ url: http.url }));
  try {
    expect(client.protocolVersion).toBe('2025-11-25');
    const result = await client.callTool({ name: 'ask_name' });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Old!' }]);
  } finally {
    await client.close();
  }
});
