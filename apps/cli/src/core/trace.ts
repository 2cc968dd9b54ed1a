import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';
import type { JsonRpcMessage, Transport } from '@mcpkit/jsonrpc';
import { hookHandler } from './handler-hook.js';

export type TraceDirection = 'send' | 'receive';

/**
 * `--trace <file>`: every JSON-RPC message in both directions, one JSON line each —
 * `{ time, server, direction, size, message }`. Messages are written as sent and received:
 * what a server sends is data, and a JSON-RPC message holds no configuration (header
 * values and URL credentials travel in the transport, never in the trace). The file is
 * created 0600 and appended to; an existing file is made 0600 before anything is written
 * (what a server sends may be private too).
 */
export class TraceFile {
  private fd: number | undefined;

  constructor(readonly file: string) {
    const fd = openSync(file, 'a', 0o600);
    try {
      fchmodSync(fd, 0o600);
    } catch (error) {
      closeSync(fd);
      throw new Error(
        `--trace ${file}: cannot make the file private (0600): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { cause: error },
      );
    }
    this.fd = fd;
  }

  write(server: string, direction: TraceDirection, message: JsonRpcMessage): void {
    if (this.fd === undefined) return;
    const size = Buffer.byteLength(JSON.stringify(message));
    const line = {
      time: new Date().toISOString(),
      server,
      direction,
      size,
      message,
    };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Makes `transport` report each message it sends and receives to `trace`. */
export function traceTransport(transport: Transport, server: string, trace: TraceFile): Transport {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    trace.write(server, 'send', message);
    return send(message, options);
  };
  hookHandler(transport, 'onmessage', (handler) => (message, extra) => {
    trace.write(server, 'receive', message);
    handler(message, extra);
  });
  return transport;
}
