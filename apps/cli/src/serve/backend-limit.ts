import { MessageTooLargeError, type Transport } from '@mcpkit/jsonrpc';
import { hookHandler } from '../core/handler-hook.js';

/** The transports' hints (stdio's framer, the HTTP transports'), in `mcpkit serve`'s words. */
const HINTS: Array<[RegExp, string]> = [
  [
    /\(raise maxMessageBytes to accept it\)/g,
    '(start mcpkit serve with a larger --max-message-bytes <n> to accept it)',
  ],
  [
    /Raise maxMessageBytes if the server is expected to send more than (\d+) bytes/g,
    'Start mcpkit serve with a larger --max-message-bytes <n> if the server is expected to send more than $1 bytes',
  ],
];

function reworded(error: unknown): unknown {
  if (!MessageTooLargeError.isInstance(error)) return error;
  let message = error.message;
  for (const [pattern, words] of HINTS) message = message.replace(pattern, words);
  if (message === error.message) return error;
  return new MessageTooLargeError(message, error.limitBytes, {
    id: error.id,
    serverName: error.serverName,
    url: error.url,
    cause: error,
  });
}

/**
 * A backend's message over `--max-message-bytes` fails the request it answers; the
 * gateway's client reads that failure (a tool result's text), so its hint names the flag of
 * `mcpkit serve` instead of the library's option. A stdio transport reports it through
 * `onerror` (swapped the way `--trace` swaps `onmessage`: the client sets its handler after
 * the transport is made); an HTTP one rejects the send, so `send` is wrapped only for those
 * (`wrapSend`), leaving a stdio backend's send path as it is.
 */
export function withServeLimitHint(transport: Transport, wrapSend: boolean): Transport {
  hookHandler(transport, 'onerror', (handler) => (error) => handler(reworded(error) as Error));
  if (wrapSend) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(message, options).catch((error: unknown) => {
        throw reworded(error);
      });
  }
  return transport;
}
