import { McpkitError } from '@mcpkit/jsonrpc';

/** Exit codes after a signal, the shell's way: 128 + the signal's number. */
export const signalExitCodes = Object.freeze({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 });
export type ShutdownSignal = keyof typeof signalExitCodes;
const SIGNALS = Object.keys(signalExitCodes) as ShutdownSignal[];

export const shutdownDefaults = Object.freeze({
  /**
   * How long closing every connection may take before what is left is killed. A stdio
   * tree is down in well under 2 s; an HTTP server that never answers its session DELETE
   * holds the close for 5 s.
   */
  closeTimeoutMs: 10_000,
});

/** The code of the error every in-flight operation is aborted with on a signal. */
export const INTERRUPTED = 'MCPKIT_INTERRUPTED';

/** The reason `Shutdown.signal` is aborted with. */
export class InterruptedError extends McpkitError {
  override readonly name: string = 'InterruptedError';
  readonly exitCode: number;

  constructor(readonly signalName: ShutdownSignal) {
    super(INTERRUPTED, `interrupted by ${signalName}`);
    this.exitCode = signalExitCodes[signalName];
  }
}

/** Something that holds a connection open: a transport, a loopback listener. */
export interface Closable {
  /** The graceful close (stdio: end stdin, SIGINT, SIGTERM, SIGKILL to the whole tree). */
  close(): Promise<void>;
  /** Synchronous last resort, for a second Ctrl-C: SIGKILL every process now. */
  kill?(): void;
  /**
   * How many connections it closes (a gateway: one per backend), as the "closing N
   * connections" line counts them; 1 when absent.
   */
  connections?(): number;
}

export interface ShutdownOptions {
  closeTimeoutMs?: number;
  /** Where status lines go (default: stderr). */
  log?: (line: string) => void;
  /** Default `process.exit`. */
  exit?: (code: number) => void;
  /** Default `process`. */
  process?: Pick<NodeJS.Process, 'on' | 'off'>;
}

/**
 * What the CLI does on SIGINT, SIGTERM and SIGHUP. The first one aborts `signal` (every
 * in-flight request is cancelled with `notifications/cancelled`), closes every tracked
 * connection, then exits 130/143/129. A second one (a second Ctrl-C) kills every process
 * tree at once and exits. Without handlers Node would die on the spot and leave every
 * server (and what each started) running under PID 1.
 */
export class Shutdown {
  private readonly controller = new AbortController();
  /** Aborted with an `InterruptedError` on the first signal. */
  readonly signal: AbortSignal = this.controller.signal;
  private readonly open = new Set<Closable>();
  private readonly closeTimeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly exit: (code: number) => void;
  private readonly proc: Pick<NodeJS.Process, 'on' | 'off'>;
  private phase: 'running' | 'closing' | 'exited' = 'running';
  private hangup: (() => void) | undefined;
  private readonly handler = (signal: NodeJS.Signals) => this.handle(signal as ShutdownSignal);

  constructor(options: ShutdownOptions = {}) {
    const closeTimeoutMs = options.closeTimeoutMs ?? shutdownDefaults.closeTimeoutMs;
    if (!Number.isInteger(closeTimeoutMs) || closeTimeoutMs <= 0 || closeTimeoutMs > 2 ** 31 - 1)
      throw new TypeError(
        `Shutdown: closeTimeoutMs must be a whole number of milliseconds between 1 and 2147483647, got ${closeTimeoutMs}`,
      );
    this.closeTimeoutMs = closeTimeoutMs;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.exit = options.exit ?? ((code) => process.exit(code));
    this.proc = options.process ?? process;
  }

  /** Listens for the signals; returns the function that stops listening. */
  install(): () => void {
    for (const s of SIGNALS) this.proc.on(s, this.handler);
    return () => {
      for (const s of SIGNALS) this.proc.off(s, this.handler);
    };
  }

  /**
   * Tracks a connection until the returned function is called (after it was closed the
   * normal way). Once shutting down, a new connection is closed at once and the
   * interruption is thrown: nothing new starts after Ctrl-C.
   */
  track(resource: Closable): () => void {
    if (this.signal.aborted) {
      resource.kill?.();
      void resource.close().catch(() => {});
      throw this.signal.reason;
    }
    this.open.add(resource);
    return () => {
      this.open.delete(resource);
    };
  }

  /** How many connections are open. */
  get size(): number {
    let count = 0;
    for (const resource of this.open) count += resource.connections?.() ?? 1;
    return count;
  }

  /**
   * While set, SIGHUP runs `handler` (a long-running command reopening its log files after
   * rotation) instead of shutting down; the returned function unsets it.
   */
  onHangup(handler: () => void): () => void {
    this.hangup = handler;
    return () => {
      if (this.hangup === handler) this.hangup = undefined;
    };
  }

  /** What a received signal does (public so that a host can forward its own). */
  handle(signal: ShutdownSignal): void {
    const code = signalExitCodes[signal] ?? 130;
    if (this.phase === 'exited') return;
    if (signal === 'SIGHUP' && this.hangup && this.phase === 'running') {
      this.hangup();
      return;
    }
    if (this.phase === 'closing') {
      this.log(`mcpkit: ${signal} again: killing every server now`);
      this.killAll();
      this.finish(code);
      return;
    }
    this.phase = 'closing';
    const count = this.size;
    if (count > 0)
      this.log(
        `mcpkit: ${signal}: closing ${count} connection${count === 1 ? '' : 's'} (press Ctrl-C again to kill at once)`,
      );
    this.controller.abort(new InterruptedError(signal));
    void this.closeAll().then((closed) => {
      if (this.phase !== 'closing') return;
      if (!closed) {
        this.log(
          `mcpkit: connections did not close within ${this.closeTimeoutMs / 1000} s: killing them`,
        );
        this.killAll();
      }
      this.finish(code);
    });
  }

  /** True when everything closed before the deadline. */
  private async closeAll(): Promise<boolean> {
    const all = [...this.open].map((r) => r.close().catch(() => {}));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.closeTimeoutMs);
    });
    try {
      return await Promise.race([Promise.all(all).then(() => true as const), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private killAll(): void {
    for (const resource of this.open) {
      try {
        resource.kill?.();
      } catch {
        // Gone already.
      }
    }
  }

  private finish(code: number): void {
    this.phase = 'exited';
    this.exit(code);
  }
}
