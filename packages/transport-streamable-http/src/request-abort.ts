import { EventEmitter } from 'node:events';

/**
 * One POST's abort, without an `AbortController` unless an `AbortSignal` is asked for. A
 * request answered in JSON needs only what undici's `request()` accepts as its signal (an
 * emitter of `'abort'` with an `aborted` flag); on Node 20 an `AbortController` and the
 * `EventTarget` listener undici adds to its signal cost several µs a call (CPU profile of
 * the sequential HTTP bench). An event stream's reader asks for `signal`, and gets a real
 * one, aborted with this when this is.
 */
export class RequestAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  /** A real `AbortSignal` that follows this abort (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.controller?.abort(this.reason);
    this.emit('abort');
  }
}
