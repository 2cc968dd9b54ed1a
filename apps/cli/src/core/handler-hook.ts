import type { Transport } from '@mcpkit/jsonrpc';

type HandlerKey = 'onmessage' | 'onerror';

/**
 * Puts `hook` in front of a transport's `onmessage` or `onerror`. The peer sets its handler
 * after the transport is made (and may set it again): the property keeps whatever is set
 * and hands out a function that calls `hook` with it, or undefined while none is set.
 * `--trace`, the gateway's stdio face and its backends' limit hint use it.
 */
export function hookHandler<K extends HandlerKey>(
  transport: Transport,
  key: K,
  hook: (handler: NonNullable<Transport[K]>) => NonNullable<Transport[K]>,
): void {
  let handler = transport[key];
  let hooked = handler ? hook(handler as NonNullable<Transport[K]>) : undefined;
  Object.defineProperty(transport, key, {
    configurable: true,
    enumerable: true,
    get: () => hooked,
    set: (next: Transport[K]) => {
      handler = next;
      hooked = next ? hook(next as NonNullable<Transport[K]>) : undefined;
    },
  });
}
