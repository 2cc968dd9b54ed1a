import { McpkitError, type Progress, RpcError, RpcErrorCode, sleep } from '@mcpkit/jsonrpc';
import { isRecord } from '@mcpkit/jsonrpc/internal';
import type { CallToolResult, ClientCapabilities } from '@mcpkit/protocol';
import { answerServerRequest } from './client-handlers.js';
import type { Connection } from './connection.js';
import { ClientErrorCode, InvalidResultError, mapRpcError } from './errors.js';
import { type CallOptions, callSignal, clientDefaults } from './options.js';
import type { RequestPipeline } from './request-pipeline.js';

/** The identifier of the tasks extension (SEP-2663), 2026-07-28. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A task of the tasks extension, as `tasks/get` describes it. */
export interface ExtensionTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, { method: string; params?: unknown }>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** How an awaited task is followed (`callTool(..., { tasks: true, ... })`, `resumeTask`). */
export interface TaskFollowOptions extends CallOptions {
  /**
   * Told the task's id as soon as the server created it: persist it to resume the call
   * after a restart (`McpClient.resumeTask`).
   */
  ontask?: (task: ExtensionTask) => void;
  /** Told every state seen by polling (`tasks/get`). */
  onstatus?: (task: ExtensionTask) => void;
}

/**
 * The task ended without a result: the server cancelled it, or it is gone (expired or
 * unknown to the server, `status: 'unknown'`). `taskId` and the last `statusMessage` say which.
 */
export class TaskEndedError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.TaskEndedError';
  override readonly name = 'TaskEndedError';
  readonly taskId: string;
  readonly status: 'cancelled' | 'unknown';
  readonly statusMessage: string | undefined;
  constructor(
    label: string,
    taskId: string,
    status: 'cancelled' | 'unknown',
    statusMessage: string | undefined,
    cause?: unknown,
  ) {
    super(
      ClientErrorCode.TaskEnded,
      `${label}: task ${taskId} ${status === 'cancelled' ? 'was cancelled' : 'is unknown to the server (expired or never created)'}${statusMessage ? `: ${statusMessage}` : ''}`,
      cause === undefined ? {} : { cause },
    );
    this.taskId = taskId;
    this.status = status;
    this.statusMessage = statusMessage;
  }
}

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** A `tools/call` answered with a task (`CreateTaskResult`), as the server sent it. */
export type TaskHandle = ExtensionTask & { resultType: 'task' };

/** Whether a `tools/call` answer is a task handle (`CreateTaskResult`). */
export function isTaskHandle(raw: unknown): raw is TaskHandle {
  return isRecord(raw) && raw.resultType === 'task';
}

/** `capabilities` with the tasks extension declared. */
export function withTasksExtension(capabilities: ClientCapabilities): ClientCapabilities {
  const extensions = (capabilities as { extensions?: Record<string, unknown> }).extensions;
  return {
    ...capabilities,
    extensions: { ...extensions, [TASKS_EXTENSION]: {} },
  } as ClientCapabilities;
}

/** Bounds on what a task's server may make us keep or do. */
const MAX_MESSAGE = 4096;
const MAX_POLL_MS = 60_000;

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` answered with a
 * task handle is followed to its end with `tasks/get` at the server's `pollIntervalMs`;
 * `statusMessage` changes go to the caller's `onprogress`; `input_required` rounds are
 * answered with the client's handlers through `tasks/update`; aborting the caller's signal
 * sends `tasks/cancel`.
 */
export class TasksExtension {
  constructor(
    private readonly conn: Connection,
    private readonly pipeline: RequestPipeline,
  ) {}

  /** The per-request capabilities that declare the extension (the client's own, plus it). */
  capabilities(options: CallOptions | undefined): ClientCapabilities {
    return withTasksExtension(options?.clientCapabilities ?? this.conn.capabilities);
  }

  /** Checks a task handle or a `tasks/get` answer: the fields a client relies on. */
  check(method: string, raw: unknown): ExtensionTask {
    const fail = (detail: string): never => {
      throw new InvalidResultError(this.conn.label, method, detail, undefined);
    };
    if (!isRecord(raw)) return fail('not an object');
    if (typeof raw.taskId !== 'string' || raw.taskId === '' || raw.taskId.length > 1024)
      fail('taskId must be a non-empty string');
    if (typeof raw.status !== 'string' || !STATUSES.has(raw.status))
      fail(`unknown task status ${JSON.stringify(raw.status)}`);
    if (raw.pollIntervalMs !== undefined && typeof raw.pollIntervalMs !== 'number')
      fail('pollIntervalMs must be a number');
    if (raw.status === 'input_required' && !isRecord(raw.inputRequests))
      fail('an input_required task needs inputRequests');
    if (raw.status === 'completed' && !isRecord(raw.result))
      fail('a completed task needs a result');
    if (raw.status === 'failed' && !isRecord(raw.error)) fail('a failed task needs an error');
    return raw as unknown as ExtensionTask;
  }

  /** Follows a task to its end: its tool result (checked as a `tools/call` result). */
  async follow(first: ExtensionTask, options: TaskFollowOptions = {}): Promise<CallToolResult> {
    const taskId = first.taskId;
    const signal = callSignal(options);
    const label = this.conn.label;
    const answered = new Set<string>();
    let lastMessage: string | undefined;
    let step = 0;
    let task = first;
    const sub: CallOptions = {
      clientCapabilities: this.capabilities(options),
      ...(signal ? { signal } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    };
    try {
      for (;;) {
        if (task.statusMessage !== undefined && task.statusMessage !== lastMessage) {
          lastMessage = task.statusMessage;
          step += 1;
          const progress: Progress = { progress: step, message: lastMessage.slice(0, MAX_MESSAGE) };
          options.onprogress?.(progress);
        }
        switch (task.status) {
          case 'completed':
            return await this.conn.checks.toolResult(task.result);
          case 'failed': {
            const e = task.error!;
            mapRpcError(
              new RpcError(
                typeof e.code === 'number' ? e.code : RpcErrorCode.InternalError,
                typeof e.message === 'string' ? e.message : 'task failed',
                e.data,
              ),
            );
            break;
          }
          case 'cancelled':
            throw new TaskEndedError(label, taskId, 'cancelled', task.statusMessage);
          case 'input_required': {
            const responses: Record<string, unknown> = {};
            for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
              // A request seen on an earlier poll was answered already.
              if (answered.has(key)) continue;
              answered.add(key);
              responses[key] = await answerServerRequest(
                this.conn.options.handlers,
                request?.method,
                request?.params,
                { signal: signal ?? new AbortController().signal },
                label,
              );
            }
            if (Object.keys(responses).length > 0) {
              await this.pipeline
                .request('tasks/update', { taskId, inputResponses: responses }, sub)
                .catch(mapRpcError);
              // The answers may take a moment to show: poll again without waiting.
              task = await this.get(taskId, sub);
              options.onstatus?.(task);
              continue;
            }
            break;
          }
        }
        const wait = Math.min(
          Math.max(task.pollIntervalMs ?? clientDefaults.taskPollIntervalMs, 0),
          MAX_POLL_MS,
        );
        await sleep(wait, signal);
        task = await this.get(taskId, sub);
        options.onstatus?.(task);
      }
    } catch (error) {
      if (signal?.aborted && this.conn.isConnected)
        await this.pipeline
          .request('tasks/cancel', { taskId }, { clientCapabilities: sub.clientCapabilities })
          .catch(() => {});
      throw error;
    }
  }

  /** `tasks/get`. An unknown task (-32602) is a `TaskEndedError` with status `unknown`. */
  async get(taskId: string, options: CallOptions): Promise<ExtensionTask> {
    const raw = await this.pipeline.request('tasks/get', { taskId }, options).catch((error) => {
      if (RpcError.isInstance(error) && error.rpcCode === RpcErrorCode.InvalidParams)
        throw new TaskEndedError(this.conn.label, taskId, 'unknown', error.message, error);
      return mapRpcError(error);
    });
    const task = this.check('tasks/get', raw);
    if (task.taskId !== taskId)
      throw new InvalidResultError(
        this.conn.label,
        'tasks/get',
        `answered for task ${task.taskId}, not ${taskId}`,
        undefined,
      );
    return task;
  }

  /** Resumes following a task by id (persisted from `ontask`), to its tool result. */
  async resume(taskId: string, options: TaskFollowOptions = {}): Promise<CallToolResult> {
    const signal = callSignal(options);
    const first = await this.get(taskId, {
      clientCapabilities: this.capabilities(options),
      ...(signal ? { signal } : {}),
    });
    options.onstatus?.(first);
    return this.follow(first, options);
  }

  /** `tasks/cancel` (acknowledged; the task may still end otherwise). */
  async cancel(taskId: string, options?: CallOptions): Promise<void> {
    await this.pipeline
      .request(
        'tasks/cancel',
        { taskId },
        { ...options, clientCapabilities: this.capabilities(options) },
      )
      .catch(mapRpcError);
  }
}
