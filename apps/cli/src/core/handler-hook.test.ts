import type { JsonRpcMessage, Transport } from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import { hookHandler } from './handler-hook.js';

function bareTransport(): Transport {
  return {
    start: async () => {},
    send: async () => {},
    close: async () => {},
  } as unknown as Transport;
}

const ping: JsonRpcMessage = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('hookHandler', () => {
  it('the hook runs in front of whichever handler the peer sets later, and follows a new one', () => {
    const transport = bareTransport();
    const seen: string[] = [];
    hookHandler(transport, 'onmessage', (handler) => (message, extra) => {
      seen.push('hook');
      handler(message, extra);
    });
    expect(transport.onmessage).toBeUndefined();
    transport.onmessage = () => seen.push('first');
    transport.onmessage?.(ping);
    transport.onmessage = () => seen.push('second');
    transport.onmessage?.(ping);
    transport.onmessage = undefined;
    expect(transport.onmessage).toBeUndefined();
    expect(seen).toEqual(['hook', 'first', 'hook', 'second']);
  });

  it('a handler set before the hook is kept and hooked', () => {
    const transport = bareTransport();
    const errors: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    hookHandler(
      transport,
      'onerror',
      (handler) => (error) => handler(new Error(`[${error.message}]`)),
    );
    transport.onerror?.(new Error('boom'));
    expect(errors).toEqual(['[boom]']);
  });
});
