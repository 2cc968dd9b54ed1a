import type { Readable, Writable } from 'node:stream';
import {
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  type JsonRpcMessage,
  type MessageExtra,
  NdjsonFramer,
  serializeNdjson,
  type Transport,
  TransportError,
} from '@mcpkit/jsonrpc';
import { dispatchParsed, JoinedWriter } from '@mcpkit/jsonrpc/internal';

export interface StdioServerTransportOptions {
  /** Where messages arrive; `process.stdin` by default. */
  stdin?: Readable;
  /** Where messages go; `process.stdout` by default. */
  stdout?: Writable;
  /** Largest incoming message, in bytes. */
  maxMessageBytes?: number;
}

/**
 * The server side of the stdio binding: newline-delimited JSON-RPC on stdin/stdout. The
 * transport closes when stdin ends (the client went away) or on `close()`; it never
 * closes the process's own streams, so a host can keep using stderr.
 */
export class StdioServerTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly description = 'stdio (server side)';
  readonly capabilities = { serverToClientRequests: true } as const;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  /** Answers sent in one tick go out in one write; none once stdout has ended. */
  private readonly writer = new JoinedWriter(() =>
    this.stdout.destroyed || this.stdout.writableEnded ? undefined : this.stdout,
  );
  private readonly framer: NdjsonFramer;
  private started = false;
  private closed = false;

  constructor(options: StdioServerTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.framer = new NdjsonFramer({
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onvalue: (value) =>
        dispatchParsed(
          value,
          (message) => this.onmessage?.(message),
          (error) => this.onerror?.(error),
        ),
      onerror: (error) => this.onerror?.(error),
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new TransportError('stdio server transport already started');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('end', this.onend);
    this.stdin.on('error', this.onstreamerror);
    this.stdout.on('error', this.onstreamerror);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) {
      return Promise.reject(new ConnectionClosedError('stdio server transport is closed'));
    }
    let line: string;
    try {
      line = serializeNdjson(message);
    } catch (error) {
      return Promise.reject(error);
    }
    // Answers sent in one tick go out in one stdout write.
    return this.writer.write(line);
  }

  async close(): Promise<void> {
    this.finish(undefined);
  }

  private readonly ondata = (chunk: Buffer | string): void => {
    this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  };

  private readonly onend = (): void => {
    this.framer.end();
    this.finish(undefined);
  };

  private readonly onstreamerror = (error: Error): void => {
    this.finish(new TransportError(`stdio stream failed: ${error.message}`, { cause: error }));
  };

  private finish(cause: Error | undefined): void {
    if (this.closed) return;
    // What was sent before the close still goes out (unless stdout itself failed).
    this.writer.close(!cause);
    this.closed = true;
    this.stdin.off('data', this.ondata);
    this.stdin.off('end', this.onend);
    this.stdin.off('error', this.onstreamerror);
    this.stdout.off('error', this.onstreamerror);
    // Let the process exit once nothing else holds it.
    this.stdin.pause();
    if (this.stdin === process.stdin) (this.stdin as { unref?: () => void }).unref?.();
    this.onclose?.(cause);
  }
}
