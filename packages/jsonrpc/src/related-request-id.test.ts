import { describe, expect, it } from 'vitest';
import { JsonRpcPeer } from './json-rpc-peer.js';
import type { JsonRpcMessage } from './messages.js';
import type { MessageExtra, Transport } from './transport.js';

/**
 * A transport that hands the peer what an HTTP transport knows of an incoming message: the
 * request on whose response stream it arrived. Scripted (no real HTTP) because the peer is
 * what is under test; the Streamable HTTP transport fills `extra` for real.
 */
class Tagging implements Transport {
  onmessage?: (m: JsonRpcMessage, extra?: MessageExtra) => void;
  onerror?: (e: Error) => void;
  onclose?: (cause?: Error) => void;
  readonly sent: JsonRpcMessage[] = [];
  async start() {}
  async send(message: JsonRpcMessage) {
    this.sent.push(message);
  }
  async close() {
    this.onclose?.();
  }
}

describe('JsonRpcPeer: RequestContext.relatedRequestId (scripted transport)', () => {
  it("an incoming request carries the transport's relatedRequestId; without one it is undefined", async () => {
    const transport = new Tagging();
    const peer = new JsonRpcPeer(transport);
    const seen: unknown[] = [];
    peer.setRequestHandler('elicitation/create', (_params, ctx) => {
      seen.push(ctx.relatedRequestId);
      return {};
    });
    await peer.start();
    transport.onmessage?.(
      { jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: {} },
      { relatedRequestId: 7 },
    );
    transport.onmessage?.({ jsonrpc: '2.0', id: 'srv-2', method: 'elicitation/create' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([7, undefined]);
    await peer.close();
  });
});
