import type { CancelScope } from './cancellation.js';
import type { JsonRpcPeer } from './json-rpc-peer.js';
import type { JsonRpcId } from './messages.js';
import {
  PROGRESS_NOTIFICATION,
  type Progress,
  type RequestContext,
  type RequestOptions,
} from './request-types.js';
import type { AuthInfo, HttpPeer } from './transport.js';

/**
 * What a handler is given for one incoming request. A class, not a literal with closures:
 * one object per request, and no `AbortController` until `signal` is read.
 */
export class InboundContext implements RequestContext {
  readonly meta: Record<string, unknown> | undefined;

  constructor(
    private readonly peer: Pick<JsonRpcPeer, 'notify' | 'request'>,
    readonly id: JsonRpcId,
    readonly method: string,
    readonly cancellation: CancelScope,
    params: Record<string, unknown> | undefined,
    readonly relatedRequestId: JsonRpcId | undefined,
    readonly authInfo: AuthInfo | undefined,
    readonly traceHeaders?: Readonly<Record<string, string>> | undefined,
    readonly httpPeer?: HttpPeer | undefined,
  ) {
    this.meta = params?._meta as Record<string, unknown> | undefined;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params, { relatedRequestId: this.id });
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<unknown> {
    return this.peer.request(method, params, { ...options, relatedRequestId: this.id });
  }

  progress(progress: Progress): Promise<void> {
    const progressToken = this.meta?.progressToken as JsonRpcId | undefined;
    if (progressToken === undefined) return Promise.resolve();
    return this.peer.notify(
      PROGRESS_NOTIFICATION,
      { progressToken, ...progress },
      { relatedRequestId: this.id },
    );
  }
}
