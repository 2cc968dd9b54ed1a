import { randomUUID } from 'node:crypto';
import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import { type CallToolResult, McpErrorCode } from '@mcpkit/protocol';
import { checkCapabilities } from './check-capabilities.js';
import { complete } from './era-rules.js';
import { invalidParams } from './errors.js';
import type { HandlerContext, InputRequest } from './types.js';

/** The identifier of the tasks extension (SEP-2663), 2026-07-28. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The extension's status notification (the issue's `notifications/tasks/status` is the 2025-11-25 name). */
export const TASKS_NOTIFICATION = 'notifications/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Per task, as `toolTask` is given it. */
export interface ToolTaskOptions {
  /** Suggested polling interval; the store's default otherwise. */
  pollIntervalMs?: number;
  /** Time to live from creation; the store's default otherwise (`null`: until evicted). */
  ttlMs?: number | null;
  /** The first `statusMessage`. */
  statusMessage?: string;
}

/** What a task's work can do while it runs. */
export interface TaskControl {
  /** The task's id; undefined when the call is awaited in place (the client did not declare the extension). */
  readonly taskId: string | undefined;
  /** Aborted when the client cancels the task (`tasks/cancel`) or the call, or the task expires. */
  readonly signal: AbortSignal;
  /**
   * A new `statusMessage` (the task stays `working`). Awaited in place, it goes to the
   * client as `notifications/progress` when the client asked for progress.
   */
  status(message: string): void;
  /**
   * Asks the client (`input_required` with these `inputRequests`; answered by
   * `tasks/update`) and resolves with the answers under the same keys. Keys must be new
   * for the task. Awaited in place: a 2025 client is asked directly; a 2026-07-28 client
   * that did not declare the extension cannot be asked (-32021).
   */
  input(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>>;
}

export type TaskWork = (task: TaskControl) => CallToolResult | Promise<CallToolResult>;

const TASK_RETURN: unique symbol = Symbol.for('mcpkit.toolTask');

/** What a tool handler returns to run as a task (see `toolTask`). */
export interface ToolTaskReturn {
  readonly [TASK_RETURN]: true;
  readonly work: TaskWork;
  readonly options: ToolTaskOptions;
}

/**
 * Returned by a tool handler: the call runs as a task. A client that declared the tasks
 * extension on its `tools/call` (2026-07-28, server with `tasks` enabled) gets a task
 * handle at once (`resultType: "task"`) and polls it; any other client's call is answered
 * when the work ends, with its result.
 */
export function toolTask(work: TaskWork, options: ToolTaskOptions = {}): ToolTaskReturn {
  return { [TASK_RETURN]: true, work, options };
}

export function isToolTaskReturn(value: unknown): value is ToolTaskReturn {
  return typeof value === 'object' && value !== null && TASK_RETURN in value;
}

/** Limits of the task store (`McpServerOptions.tasks`). */
export interface TaskStoreOptions {
  /** Tasks kept at once; when full, the oldest ended task goes, else new tasks are refused. Default 1000. */
  maxTasks?: number;
  /** Default time to live of a task from its creation. Default 1 hour. */
  ttlMs?: number;
  /** Default suggested polling interval. Default 1000 ms. */
  pollIntervalMs?: number;
}

export const taskStoreDefaults = Object.freeze({
  maxTasks: 1000,
  ttlMs: 3_600_000,
  pollIntervalMs: 1000,
});

/** Whether the request declared the tasks extension in its per-request capabilities. */
export function declaresTasks(ctx: HandlerContext): boolean {
  const extensions = (ctx.clientCapabilities as { extensions?: Record<string, unknown> })
    .extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/** -32021 for a client that did not declare the extension (the core 2026-07-28 code). */
export function tasksNotDeclared(what: string): RpcError {
  return new RpcError(
    McpErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension; declare it in the request's client capabilities`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

function checkInputRequests(
  requests: Record<string, InputRequest>,
  ctx: HandlerContext,
  what: string,
): void {
  for (const [key, request] of Object.entries(requests)) {
    const capability = CAPABILITY_OF[request?.method];
    if (!capability)
      throw new Error(
        `${what}: input request "${key}" has unknown method ${JSON.stringify(request?.method)}`,
      );
    checkCapabilities({ [capability]: {} }, ctx, what);
  }
}

interface Waiting {
  answers: Record<string, Record<string, unknown>>;
  resolve: (answers: Record<string, Record<string, unknown>>) => void;
  reject: (error: unknown) => void;
}

interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  statusMessage: string | undefined;
  createdAt: string;
  lastUpdatedAt: string;
  createdMs: number;
  ttlMs: number | null;
  pollIntervalMs: number;
  result: Record<string, unknown> | undefined;
  error: Record<string, unknown> | undefined;
  /** Outstanding input requests, by key. */
  inputRequests: Map<string, InputRequest>;
  /** Every key ever asked (a key is never reused within a task). */
  usedKeys: Set<string>;
  waiting: Waiting | undefined;
  controller: AbortController;
  /** Who created it (the verified caller), when the listener verifies callers. */
  owner: string | undefined;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Who a task belongs to: the verified caller (undefined for an unverified one). */
export function taskOwner(ctx: HandlerContext): string | undefined {
  const auth = ctx.authInfo;
  return auth ? `${auth.kind}\u0000${auth.subject ?? ''}\u0000${auth.clientId ?? ''}` : undefined;
}

function errorObject(error: unknown): Record<string, unknown> {
  if (RpcError.isInstance(error)) {
    const out: Record<string, unknown> = { code: error.rpcCode, message: error.message };
    if (error.data !== undefined) out.data = error.data;
    return out;
  }
  return { code: RpcErrorCode.InternalError, message: 'Internal error' };
}

/**
 * The tasks of one `McpServer`: created by tool calls, read by `tasks/get`, answered by
 * `tasks/update`, cancelled by `tasks/cancel`. Bounded (`maxTasks`, each task's TTL); ids
 * are random UUIDs (122 random bits), and a task made by a verified caller is visible to
 * that caller only.
 */
export class TaskStore {
  readonly maxTasks: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  private readonly tasks = new Map<string, TaskRecord>();

  constructor(
    options: TaskStoreOptions,
    /** Told each new state of a task, as `tasks/get` would answer it. */
    private readonly onchange: (taskId: string, detailed: Record<string, unknown>) => void,
    private readonly onerror: (error: Error) => void,
  ) {
    this.maxTasks = options.maxTasks ?? taskStoreDefaults.maxTasks;
    this.ttlMs = options.ttlMs ?? taskStoreDefaults.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? taskStoreDefaults.pollIntervalMs;
    if (!Number.isInteger(this.maxTasks) || this.maxTasks < 1)
      throw new TypeError('McpServer tasks.maxTasks must be a positive integer');
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Answers a declaring client's `tools/call` whose handler returned `toolTask(...)`: a task handle. */
  serve(ret: ToolTaskReturn, ctx: HandlerContext, name: string): unknown {
    const record = this.create(ret.options, ctx);
    const control: TaskControl = {
      taskId: record.taskId,
      signal: record.controller.signal,
      status: (message) => {
        if (TERMINAL.has(record.status)) return;
        record.statusMessage = message;
        this.touch(record);
      },
      input: (requests) => this.ask(record, requests, ctx, name),
    };
    Promise.resolve()
      .then(() => ret.work(control))
      .then(
        (result) => this.finish(record, 'completed', { result: complete(result) as never }),
        (error: unknown) => {
          if (record.controller.signal.aborted) return this.finish(record, 'cancelled', {});
          if (RpcError.isInstance(error))
            return this.finish(record, 'failed', {
              error: errorObject(error),
              statusMessage: error.message,
            });
          // A tool's own failure is a tool result for the model, as in a plain call.
          const text = error instanceof Error ? error.message : String(error);
          return this.finish(record, 'completed', {
            result: { resultType: 'complete', content: [{ type: 'text', text }], isError: true },
          });
        },
      )
      .catch((error: unknown) => this.onerror(error as Error));
    return { resultType: 'task', ...this.describe(record, false) };
  }

  /** `tasks/get`. */
  get(params: Record<string, unknown>, ctx: HandlerContext): Record<string, unknown> {
    return this.describe(this.find(params, ctx, 'tasks/get'), true);
  }

  /** `tasks/update`: answers to outstanding input requests; others are ignored. */
  update(params: Record<string, unknown>, ctx: HandlerContext): Record<string, unknown> {
    const record = this.find(params, ctx, 'tasks/update');
    const responses = params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw invalidParams(
        'tasks/update needs "inputResponses", an object keyed by inputRequests keys',
      );
    const waiting = record.waiting;
    if (waiting && record.status === 'input_required') {
      for (const [key, answer] of Object.entries(responses)) {
        if (!record.inputRequests.has(key)) continue;
        if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
          throw invalidParams(`inputResponses["${key}"] must be a result object`);
        record.inputRequests.delete(key);
        waiting.answers[key] = answer as Record<string, unknown>;
      }
      if (record.inputRequests.size === 0) {
        record.waiting = undefined;
        record.status = 'working';
        this.touch(record);
        waiting.resolve(waiting.answers);
      }
    }
    return {};
  }

  /** `tasks/cancel`: the work's signal aborts and the task ends `cancelled` at once. */
  cancel(params: Record<string, unknown>, ctx: HandlerContext): Record<string, unknown> {
    const record = this.find(params, ctx, 'tasks/cancel');
    if (!TERMINAL.has(record.status)) {
      record.controller.abort(new Error(`task ${record.taskId} cancelled by the client`));
      this.finish(record, 'cancelled', { statusMessage: 'Cancelled by the client' });
    }
    return {};
  }

  /** Whether `taskId` names a live task this caller may see (a listen stream's filter). */
  visible(taskId: string, ctx: HandlerContext): boolean {
    this.sweep();
    const record = this.tasks.get(taskId);
    return record !== undefined && record.owner === taskOwner(ctx);
  }

  /** Aborts every task (the server closes). */
  close(): void {
    for (const record of this.tasks.values()) record.controller.abort(new Error('server closed'));
    this.tasks.clear();
  }

  private create(options: ToolTaskOptions, ctx: HandlerContext): TaskRecord {
    this.sweep();
    if (this.tasks.size >= this.maxTasks) {
      for (const [id, record] of this.tasks) {
        if (TERMINAL.has(record.status)) {
          this.tasks.delete(id);
          break;
        }
      }
      if (this.tasks.size >= this.maxTasks)
        throw new RpcError(
          RpcErrorCode.InternalError,
          `the server runs ${this.maxTasks} tasks already (its limit); try again once one ends`,
          { maxTasks: this.maxTasks },
        );
    }
    const now = new Date();
    const record: TaskRecord = {
      taskId: randomUUID(),
      status: 'working',
      statusMessage: options.statusMessage,
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      createdMs: now.getTime(),
      ttlMs: options.ttlMs === undefined ? this.ttlMs : options.ttlMs,
      pollIntervalMs: options.pollIntervalMs ?? this.pollIntervalMs,
      result: undefined,
      error: undefined,
      inputRequests: new Map(),
      usedKeys: new Set(),
      waiting: undefined,
      controller: new AbortController(),
      owner: taskOwner(ctx),
    };
    this.tasks.set(record.taskId, record);
    return record;
  }

  private find(params: Record<string, unknown>, ctx: HandlerContext, method: string): TaskRecord {
    if (!declaresTasks(ctx)) throw tasksNotDeclared(method);
    const taskId = params.taskId;
    if (typeof taskId !== 'string') throw invalidParams(`${method} needs a "taskId" string`);
    this.sweep();
    const record = this.tasks.get(taskId);
    // Another caller's task is as unknown as one that never was.
    if (!record || record.owner !== taskOwner(ctx))
      throw invalidParams(`Failed to retrieve task: Task not found`, { taskId });
    return record;
  }

  /** Drops the tasks whose time to live is over (their work is aborted). */
  private sweep(): void {
    const now = Date.now();
    for (const [id, record] of this.tasks) {
      if (record.ttlMs !== null && now - record.createdMs >= record.ttlMs) {
        this.tasks.delete(id);
        record.controller.abort(new Error(`task ${id} expired`));
        record.waiting?.reject(new Error(`task ${id} expired`));
      }
    }
  }

  private ask(
    record: TaskRecord,
    requests: Record<string, InputRequest>,
    ctx: HandlerContext,
    name: string,
  ): Promise<Record<string, Record<string, unknown>>> {
    if (TERMINAL.has(record.status))
      return Promise.reject(new Error(`task ${record.taskId} has ended`));
    if (record.waiting) return Promise.reject(new Error('one input round at a time per task'));
    const keys = Object.keys(requests);
    if (keys.length === 0) return Promise.resolve({});
    try {
      checkInputRequests(requests, ctx, `tools/call "${name}"`);
      for (const key of keys) {
        if (record.usedKeys.has(key))
          throw new Error(
            `tools/call "${name}": input request key "${key}" was used before in this task`,
          );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      for (const key of keys) {
        record.usedKeys.add(key);
        record.inputRequests.set(key, requests[key]!);
      }
      record.waiting = { answers: {}, resolve, reject };
      record.status = 'input_required';
      this.touch(record);
    });
  }

  private finish(
    record: TaskRecord,
    status: 'completed' | 'failed' | 'cancelled',
    fields: {
      result?: Record<string, unknown>;
      error?: Record<string, unknown>;
      statusMessage?: string;
    },
  ): void {
    if (TERMINAL.has(record.status)) return;
    record.status = status;
    record.result = fields.result;
    record.error = fields.error;
    if (fields.statusMessage !== undefined) record.statusMessage = fields.statusMessage;
    record.inputRequests.clear();
    const waiting = record.waiting;
    record.waiting = undefined;
    waiting?.reject(new Error(`task ${record.taskId} ${status}`));
    this.touch(record);
  }

  private touch(record: TaskRecord): void {
    record.lastUpdatedAt = new Date().toISOString();
    if (!this.tasks.has(record.taskId)) return;
    this.onchange(record.taskId, this.describe(record, true));
  }

  /** The task on the wire: its `DetailedTask` form (`detailed`) or the bare `Task`. */
  private describe(record: TaskRecord, detailed: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {
      taskId: record.taskId,
      status: record.status,
      createdAt: record.createdAt,
      lastUpdatedAt: record.lastUpdatedAt,
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
    };
    if (record.statusMessage !== undefined) out.statusMessage = record.statusMessage;
    if (!detailed) return out;
    if (record.status === 'input_required')
      out.inputRequests = Object.fromEntries(record.inputRequests);
    else if (record.status === 'completed') out.result = record.result;
    else if (record.status === 'failed') out.error = record.error;
    return out;
  }
}

/**
 * A task's work run within the call itself, for a client that cannot follow a task: its
 * result (or failure) is the call's.
 */
export async function runTaskInPlace(
  ret: ToolTaskReturn,
  ctx: HandlerContext,
  name: string,
): Promise<unknown> {
  let step = 0;
  const control: TaskControl = {
    taskId: undefined,
    get signal() {
      return ctx.signal;
    },
    status: (message) => {
      step += 1;
      ctx.progress({ progress: step, message }).catch(() => {});
    },
    input: async (requests) => {
      if (ctx.era === 'modern')
        throw tasksNotDeclared(`tools/call "${name}" (input during a task)`);
      checkInputRequests(requests, ctx, `tools/call "${name}"`);
      const answers: Record<string, Record<string, unknown>> = {};
      for (const [key, request] of Object.entries(requests))
        answers[key] = await ctx.request(request.method, request.params ?? {});
      return answers;
    },
  };
  if (ret.options.statusMessage !== undefined) control.status(ret.options.statusMessage);
  return ret.work(control);
}
