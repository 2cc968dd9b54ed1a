import { McpkitError } from '@mcpkit/jsonrpc';
import { type BodyChunks, readBodyLimited } from '@mcpkit/jsonrpc/internal';

/**
 * An authorization server that could not be asked (unreachable, slow, an answer too big or
 * not JSON): the token is neither accepted nor blamed; the listener answers 503.
 */
export class AuthorizationServerUnavailableError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.AuthorizationServerUnavailableError';
  override readonly name: string = 'AuthorizationServerUnavailableError';
  constructor(
    readonly url: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('MCPKIT_GATEWAY_AS_UNAVAILABLE', `${url}: ${reason}`, options);
  }
}

export interface FetchJsonOptions {
  timeoutMs: number;
  maxBytes: number;
  init?: RequestInit;
  /** Statuses whose JSON body is still read (introspection answers 200 only). */
  okStatuses?: readonly number[];
}

/** A JSON object from `url`: bounded in time and size, no redirects followed. */
export async function fetchJson(
  url: string,
  options: FetchJsonOptions,
): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      ...options.init,
      redirect: 'error',
      signal,
      headers: { accept: 'application/json', ...(options.init?.headers as Record<string, string>) },
    });
  } catch (error) {
    throw new AuthorizationServerUnavailableError(
      url,
      signal.aborted ? `no answer in ${options.timeoutMs} ms` : 'could not be reached',
      { cause: error },
    );
  }
  if (!(options.okStatuses ?? [200]).includes(res.status)) {
    await res.body?.cancel().catch(() => {});
    throw new AuthorizationServerUnavailableError(url, `answered HTTP ${res.status}`);
  }
  const announced = Number(res.headers.get('content-length'));
  if (announced > options.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new AuthorizationServerUnavailableError(
      url,
      `an answer of ${announced} bytes, over the ${options.maxBytes}-byte limit`,
    );
  }
  let text = '';
  try {
    if (res.body)
      text = await readBodyLimited(
        res.body as unknown as BodyChunks,
        options.maxBytes,
        () =>
          new AuthorizationServerUnavailableError(
            url,
            `an answer over the ${options.maxBytes}-byte limit`,
          ),
      );
  } catch (error) {
    if (AuthorizationServerUnavailableError.isInstance(error)) throw error;
    throw new AuthorizationServerUnavailableError(
      url,
      signal.aborted ? `no answer in ${options.timeoutMs} ms` : 'the answer broke off',
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AuthorizationServerUnavailableError(url, 'the answer is not JSON', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AuthorizationServerUnavailableError(url, 'the answer is not a JSON object');
  return value as Record<string, unknown>;
}
