import { type CallOptions, isTaskHandle, type McpClient } from '@mcpkit/client';
import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import type { HandlerContext } from '@mcpkit/server';
import { declaresTasks, taskOwner } from '@mcpkit/server/internal';
import { z } from 'zod';

/** Task ids remembered at once; the oldest is forgotten past this. */
const MAX_ROUTES = 10_000;
/** A backend's task answer, passed on as it came. */
const AsItCame = z.looseObject({});

/**
 * The tasks extension through the gateway. A caller that declared it gets a backend's task
 * handle as the backend sent it, and its `tasks/get`, `tasks/update`, `tasks/cancel` for that
 * task go to that backend (only from the caller that got the handle). A caller that did not
 * declare it has the task followed by the gateway and gets the final result.
 */
export class TaskRoutes {
  private readonly routes = new Map<string, { server: string; owner: string | undefined }>();

  constructor(private readonly clientOf: (server: string) => McpClient | undefined) {}

  /** A backend call's options: the extension declared to a 2026-07-28 backend. */
  options<T extends CallOptions>(ctx: HandlerContext, client: McpClient, options: T): T {
    if (client.era !== 'modern') return options;
    return { ...options, tasks: ctx.era === 'modern' && declaresTasks(ctx) ? 'return' : true };
  }

  /** Remembers which backend holds a task handle on its way to the caller; any answer passes as it is. */
  note<T>(server: string, ctx: HandlerContext, answer: T): T {
    if (isTaskHandle(answer)) {
      if (this.routes.size >= MAX_ROUTES) {
        const oldest = this.routes.keys().next().value;
        if (oldest !== undefined) this.routes.delete(oldest);
      }
      this.routes.set(answer.taskId, { server, owner: taskOwner(ctx) });
    }
    return answer;
  }

  /** `McpServerOptions.routeTask`: a passed-through task's request to its backend. */
  route(method: string, params: Record<string, unknown>, ctx: HandlerContext): unknown {
    const taskId = params.taskId;
    if (typeof taskId !== 'string') return undefined;
    const route = this.routes.get(taskId);
    if (!route || route.owner !== taskOwner(ctx)) return undefined;
    const client = this.clientOf(route.server);
    if (!client)
      throw new RpcError(
        RpcErrorCode.InternalError,
        `mcpkit gateway: server "${route.server}", which holds task ${taskId}, is not connected`,
        { server: route.server, taskId },
      );
    // The caller's own `_meta` (its version and capabilities) is the gateway's to set.
    const forwarded: Record<string, unknown> = { taskId };
    if (params.inputResponses !== undefined) forwarded.inputResponses = params.inputResponses;
    return client.call(method, forwarded, AsItCame, {
      clientCapabilities: ctx.clientCapabilities,
      cancellation: ctx.cancellation,
    });
  }
}
