import {
  type JsonRpcPeer,
  ResponseLostError,
  RpcError,
  SessionExpiredError,
} from '@mcpkit/jsonrpc';
import { ClientMethod, type DiscoverResult, McpErrorCode, MetaKey } from '@mcpkit/protocol';
import { answerServerRequest } from './client-handlers.js';
import { describeRequest, withOnid } from './client-instrumentation.js';
import { ConnectBudget } from './connect-budget.js';
import type { Connection } from './connection.js';
import { LimitExceededError, mapRpcError, UnsupportedProtocolVersionError } from './errors.js';
import { mcpTransportOf } from './mcp-transport-of.js';
import { isInputRequired, pickVersion, supportedOf, versionEra } from './modern.js';
import { handshake } from './negotiation.js';
import { type CallOptions, callSignal, clientDefaults, type InputRoundOptions } from './options.js';
import type { SchemaName } from './result-checks.js';

/** Methods whose 2026-07-28 results may be `input_required`. */
const MULTI_ROUND: ReadonlySet<string> = new Set([
  ClientMethod.CallTool,
  ClientMethod.GetPrompt,
  ClientMethod.ReadResource,
]);

/** `params` with the 2026-07-28 request `_meta` (and a per-request log level) added. */
export function withMeta(
  meta: Record<string, unknown>,
  params: Record<string, unknown> | undefined,
  options: CallOptions | undefined,
): Record<string, unknown> {
  let merged = meta;
  const own = params?._meta as Record<string, unknown> | undefined;
  if (own || options?.logLevel || options?.clientCapabilities) {
    merged = { ...own, ...meta };
    if (options?.logLevel) merged[MetaKey.LogLevel] = options.logLevel;
    if (options?.clientCapabilities)
      merged[MetaKey.ClientCapabilities] = options.clientCapabilities;
  }
  return { ...params, _meta: merged };
}

/** The caller's answers for the next round of a caller-driven multi round-trip request. */
function withInputRound(
  method: string,
  params: Record<string, unknown> | undefined,
  options: CallOptions | undefined,
): Record<string, unknown> | undefined {
  const round = options as InputRoundOptions | undefined;
  if (round?.inputRequired !== 'return' || !MULTI_ROUND.has(method)) return params;
  const next: Record<string, unknown> = { ...params };
  if (round.inputResponses !== undefined) next.inputResponses = round.inputResponses;
  if (round.requestState !== undefined) next.requestState = round.requestState;
  return next;
}

/**
 * How a request reaches the server and what is retried on the way. Legacy: when the
 * server has forgotten our session (HTTP 404), a new session and one retry. 2026-07-28:
 * the request `_meta`, answers to `input_required` results, and one retry on a lost
 * response, another version (-32022) or changed tool headers (-32020).
 */
export class RequestPipeline {
  private renewing: Promise<void> | undefined;

  /**
   * `refreshTools` lists the tools afresh: their headers may have changed (-32020).
   * `onrenewed` is told of each new session that replaced one the server forgot.
   */
  constructor(
    private readonly conn: Connection,
    private readonly refreshTools: () => Promise<unknown>,
    private readonly onrenewed: () => void = () => {},
  ) {}

  /**
   * A new session for the one the server forgot (`expired`, from a 404): `resetSession`,
   * then `initialize` again, with the connect's budget. One renewal at a time, shared by
   * every request that met the 404; none when a newer session is in place already (a 404
   * that arrived after the renewal it caused).
   */
  renew(peer: JsonRpcPeer, expired: string): Promise<void> {
    if (this.renewing) return this.renewing;
    const transport = mcpTransportOf(peer);
    const current = transport.sessionId;
    if (current !== undefined && current !== expired) return Promise.resolve();
    const conn = this.conn;
    const renewing = (async () => {
      transport.resetSession?.();
      const budget = new ConnectBudget(conn.connectTimeoutMs, conn.label);
      await handshake(conn, peer, { budget }, conn.server?.version);
    })().finally(() => {
      this.renewing = undefined;
    });
    this.renewing = renewing;
    renewing.then(this.onrenewed, () => {});
    return renewing;
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<unknown> {
    const hooks = this.conn.instrumentation;
    if (hooks === undefined || (hooks.enabled !== undefined && !hooks.enabled()))
      return this.send(method, params, options);
    return hooks.clientRequest(describeRequest(this.conn, method, params), (traced, onid) =>
      this.send(method, traced, withOnid(options, onid)),
    );
  }

  private send(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<unknown> {
    const conn = this.conn;
    let peer: JsonRpcPeer;
    try {
      peer = conn.connectedPeer();
    } catch (error) {
      return Promise.reject(error);
    }
    if (conn.server!.era === 'modern')
      return this.modernRequest(peer, method, params, options, true);
    // A request made while a new session is being set up goes out under that session.
    if (this.renewing) return this.renewing.then(() => this.send(method, params, options));
    const first = peer.request(method, params, options);
    if (!mcpTransportOf(peer).resetSession) return first;
    return first.catch((error: unknown) => {
      if (!SessionExpiredError.isInstance(error)) throw error;
      // The server refused the request for its session (404): it never ran, so it is sent
      // again, once, under the new session.
      return this.renew(peer, error.sessionId).then(() => peer.request(method, params, options));
    });
  }

  /** Sends a request and checks the result: the fast validator first, else the schema. */
  async requestChecked<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schemaName: SchemaName,
    fast: ((raw: unknown) => T | undefined) | undefined,
    options?: CallOptions,
  ): Promise<T> {
    const raw = await this.request(method, params, options).catch(mapRpcError);
    return this.conn.checks.check(method, raw, schemaName, fast);
  }

  private modernRequest(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    mayRetry: boolean,
  ): Promise<unknown> {
    const sent = peer.request(
      method,
      withMeta(this.conn.meta, withInputRound(method, params, options), options),
      options,
    );
    return sent.then(
      (raw) =>
        isInputRequired(raw) &&
        MULTI_ROUND.has(method) &&
        (options as InputRoundOptions | undefined)?.inputRequired !== 'return'
          ? this.answerInput(peer, method, params, options, raw)
          : raw,
      (error: unknown) => {
        if (!mayRetry) throw error;
        // The stream broke before the answer: 2026-07-28 asks for the same request anew
        // (a new id), once.
        if (
          ResponseLostError.isInstance(error) &&
          !options?.signal?.aborted &&
          !options?.cancellation?.aborted
        )
          return this.modernRequest(peer, method, params, options, false);
        if (!RpcError.isInstance(error)) throw error;
        return this.recover(peer, method, params, options, error);
      },
    );
  }

  /** One retry after a -32022 (another version) or a -32020 on `tools/call` (fresh schemas). */
  private async recover(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    error: RpcError,
  ): Promise<unknown> {
    const conn = this.conn;
    if (error.rpcCode === McpErrorCode.UnsupportedProtocolVersion) {
      const current = conn.server!.version;
      const pick = pickVersion(
        conn.versions().filter((v) => versionEra(v) === 'modern'),
        supportedOf(error),
        new Set([current]),
      );
      if (!pick)
        throw new UnsupportedProtocolVersionError(
          conn.label,
          undefined,
          conn.versions(),
          supportedOf(error),
        );
      conn.server = {
        ...(conn.server as { era: 'modern'; discover: DiscoverResult }),
        version: pick,
      };
      conn.setVersion(peer, pick);
      const key = mcpTransportOf(peer).eraKey;
      if (key !== undefined) conn.eraCache()?.set(key, { era: 'modern', version: pick });
      return this.modernRequest(peer, method, params, options, false);
    }
    if (error.rpcCode === McpErrorCode.HeaderMismatch && method === ClientMethod.CallTool) {
      // The tool's schema (and so its Mcp-Param headers) may have changed: look again.
      await this.refreshTools();
      return this.modernRequest(peer, method, params, options, false);
    }
    throw error;
  }

  /** Multi round-trip requests: fulfil `inputRequests` with the host's handlers and retry. */
  private async answerInput(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    first: unknown,
  ): Promise<unknown> {
    const { options: clientOptions, label } = this.conn;
    const maxRounds = clientOptions.maxInputRounds ?? clientDefaults.maxInputRounds;
    const signal = callSignal(options) ?? new AbortController().signal;
    let raw = first;
    for (let round = 1; isInputRequired(raw); round++) {
      if (round > maxRounds) {
        throw new LimitExceededError(
          `${label}: "${method}" still asked for input after ${maxRounds} rounds; giving up (raise maxInputRounds if the server needs more)`,
          'maxInputRounds',
          maxRounds,
        );
      }
      const retry: Record<string, unknown> = { ...params };
      if (raw.inputRequests !== undefined) {
        const responses: Record<string, unknown> = {};
        for (const [key, request] of Object.entries(raw.inputRequests)) {
          responses[key] = await answerServerRequest(
            clientOptions.handlers,
            request?.method,
            request?.params,
            { signal },
            label,
          );
        }
        retry.inputResponses = responses;
      }
      if (raw.requestState !== undefined) retry.requestState = raw.requestState;
      raw = await peer.request(method, withMeta(this.conn.meta, retry, options), options);
    }
    return raw;
  }
}
