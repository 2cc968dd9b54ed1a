import { sleep } from '@mcpkit/jsonrpc';
import {
  type CallToolResult,
  ClientMethod,
  type ServerCapabilities,
  type Task,
} from '@mcpkit/protocol';
import type { Connection } from './connection.js';
import { mapRpcError, UnsupportedByServerError } from './errors.js';
import { type CallOptions, type CallToolParams, callSignal, clientDefaults } from './options.js';
import { listAll } from './paginate.js';
import type { RequestPipeline } from './request-pipeline.js';

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Whether the server runs `tools/call` as a task (`tasks.requests.tools.call`). */
export function serverRunsToolTasks(capabilities: ServerCapabilities | undefined): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } })?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** Tasks (2025-11-25): tool calls the server runs in the background, polled to their end. */
export class Tasks {
  constructor(
    private readonly conn: Connection,
    private readonly pipeline: RequestPipeline,
  ) {}

  async callToolAsTask(
    params: CallToolParams,
    task: { ttl?: number },
    options?: CallOptions,
  ): Promise<Task> {
    if (!serverRunsToolTasks(this.conn.serverCapabilities)) {
      throw new UnsupportedByServerError(
        `${this.conn.label}: the server does not run tool calls as tasks (no tasks.requests.tools.call capability); call the tool without a task`,
      );
    }
    const result = await this.pipeline.requestChecked<{ task: Task }>(
      ClientMethod.CallTool,
      { ...params, task } as Record<string, unknown>,
      'CreateTaskResultSchema',
      undefined,
      options,
    );
    return result.task;
  }

  get(taskId: string, options?: CallOptions): Promise<Task> {
    return this.pipeline.requestChecked(
      ClientMethod.GetTask,
      { taskId },
      'GetTaskResultSchema',
      undefined,
      options,
    );
  }

  async result(taskId: string, options?: CallOptions): Promise<CallToolResult> {
    const raw = await this.pipeline
      .request(ClientMethod.GetTaskResult, { taskId }, options)
      .catch(mapRpcError);
    return this.conn.checks.toolResult(raw);
  }

  cancel(taskId: string, options?: CallOptions): Promise<Task> {
    return this.pipeline.requestChecked(
      ClientMethod.CancelTask,
      { taskId },
      'GetTaskResultSchema',
      undefined,
      options,
    );
  }

  async list(options?: CallOptions): Promise<Task[]> {
    const { items } = await listAll<'tasks', Task>(
      this.conn,
      this.pipeline,
      ClientMethod.ListTasks,
      'tasks',
      'ListTasksResultSchema',
      undefined,
      options,
    );
    return items;
  }

  /**
   * Polls with `tasks/get` at the server's `pollInterval` until the task ends or needs
   * input, then fetches its result with `tasks/result` (which carries the server's
   * requests for input to the handlers). Aborting the signal cancels the task.
   */
  async wait(
    taskId: string,
    options: CallOptions & { onstatus?: (task: Task) => void },
  ): Promise<CallToolResult> {
    const signal = callSignal(options);
    try {
      for (;;) {
        const task = await this.get(taskId, { ...(signal ? { signal } : {}) });
        options.onstatus?.(task);
        if (TERMINAL.has(task.status) || task.status === 'input_required') {
          return await this.result(taskId, {
            ...(signal ? { signal } : {}),
            timeoutMs: options.timeoutMs ?? 0,
          });
        }
        await sleep(task.pollInterval ?? clientDefaults.taskPollIntervalMs, signal);
      }
    } catch (error) {
      if (signal?.aborted && this.conn.isConnected) await this.cancel(taskId).catch(() => {});
      throw error;
    }
  }
}
