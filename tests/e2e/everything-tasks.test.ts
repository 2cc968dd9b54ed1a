import { McpClient } from '@mcpkit/client';
import type { Task } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { SchemaCheckedTransport } from '../support/schema-check.js';

/**
 * Tasks (2025-11-25) against server-everything's `simulate-research-query`, a tool that
 * runs only as a task (four one-second stages, pollInterval 1000 ms) and, when the query
 * is ambiguous, asks the user through `tasks/result` while in `input_required`.
 */
describe('tasks against server-everything over stdio', () => {
  const notified: Task[] = [];
  const asked: string[] = [];
  let client: McpClient;
  let checked: SchemaCheckedTransport;

  beforeAll(async () => {
    checked = new SchemaCheckedTransport(
      new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'] }),
    );
    client = new McpClient({
      name: 'everything',
      ontaskstatus: (task) => notified.push(task),
      handlers: {
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { interpretation: 'the fruit' } };
        },
      },
    });
    await client.connect(checked);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('the server runs tool calls as tasks, and the tool requires it', async () => {
    expect(client.serverCapabilities).toMatchObject({
      tasks: { requests: { tools: { call: {} } } },
    });
    const tool = (await client.listTools()).find((t) => t.name === 'simulate-research-query');
    expect((tool as { execution?: unknown }).execution).toEqual({ taskSupport: 'required' });
  });

  it('a task is created, listed, polled at its pollInterval until it completes, and its result fetched', async () => {
    const task = await client.callToolAsTask(
      { name: 'simulate-research-query', arguments: { topic: 'apples' } },
      { ttl: 60_000 },
    );
    expect(task).toMatchObject({ status: 'working', pollInterval: 1000 });
    expect((await client.listTasks()).map((t) => t.taskId)).toContain(task.taskId);
    const polls: Array<{ at: number; status: string }> = [];
    const result = await client.waitForTask(task.taskId, {
      onstatus: (t) => polls.push({ at: Date.now(), status: t.status }),
    });
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect((result.content[0] as { text: string }).text).toContain('# Research Report: apples');
    expect(polls.at(-1)!.status).toBe('completed');
    expect(polls.length).toBeGreaterThan(1);
    // Never sooner than the server asked (a small allowance for timer granularity).
    for (let i = 1; i < polls.length; i++)
      expect(polls[i]!.at - polls[i - 1]!.at).toBeGreaterThanOrEqual(950);
    expect(notified.some((t) => t.taskId === task.taskId && t.status === 'completed')).toBe(true);
  });

  it('callTool on a task-only tool runs it as a task; input_required is answered through tasks/result', async () => {
    const result = await client.callTool({
      name: 'simulate-research-query',
      arguments: { topic: 'apple', ambiguous: true },
    });
    expect((result.content[0] as { text: string }).text).toContain(
      '# Research Report: apple (the fruit)',
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('could have multiple interpretations');
    expect(notified.some((t) => t.status === 'input_required')).toBe(true);
  });

  it('a task can be cancelled', async () => {
    const task = await client.callToolAsTask({
      name: 'simulate-research-query',
      arguments: { topic: 'pears' },
    });
    const cancelled = await client.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect((await client.getTask(task.taskId)).status).toBe('cancelled');
  });

  it('aborting waitForTask cancels the task on the server', async () => {
    const task = await client.callToolAsTask({
      name: 'simulate-research-query',
      arguments: { topic: 'plums' },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the user gave up')), 300);
    await expect(client.waitForTask(task.taskId, { signal: controller.signal })).rejects.toThrow(
      'the user gave up',
    );
    expect((await client.getTask(task.taskId)).status).toBe('cancelled');
  });

  it('every message sent validates against the 2025-11-25 schema', () => {
    expect(checked.problems()).toEqual([]);
  });
});
