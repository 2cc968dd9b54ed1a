import { MessageTooLargeError, type Transport } from '@mcpkit/jsonrpc';

const LIBRARY_HINT = '(raise maxMessageBytes to accept it)';
const SERVE_HINT = '(start mcpkit serve with a larger --max-message-bytes <n> to accept it)';

/**
 * A backend's message over `--max-message-bytes` fails the request it answers; the client
 * of the gateway reads that failure (a tool result's text), so its hint names the flag of
 * `mcpkit serve` instead of the library's option. Swaps the transport's `onerror` the way
 * `--trace` swaps `onmessage`: the client sets its handler after the transport is made.
 */
export function withServeLimitHint(transport: Transport): Transport {
  let handler = transport.onerror;
  const rewording: NonNullable<Transport['onerror']> = (error) => {
    if (!MessageTooLargeError.isInstance(error) || !error.message.includes(LIBRARY_HINT))
      return handler?.(error);
    handler?.(
      new MessageTooLargeError(
        error.message.replaceAll(LIBRARY_HINT, SERVE_HINT),
        error.limitBytes,
        {
          id: error.id,
          serverName: error.serverName,
          url: error.url,
          cause: error,
        },
      ),
    );
  };
  Object.defineProperty(transport, 'onerror', {
    configurable: true,
    enumerable: true,
    get: () => (handler ? rewording : undefined),
    set: (next: Transport['onerror']) => {
      handler = next;
    },
  });
  return transport;
}
