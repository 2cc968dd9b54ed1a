import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import {
  AlreadyStartedError,
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  type JsonRpcId,
  type JsonRpcMessage,
  JsonTooDeepError,
  type MessageExtra,
  MessageTooLargeError,
  NdjsonFramer,
  type ParseError,
  sleep,
  type Transport,
  type TransportCapabilities,
} from '@mcpkit/jsonrpc';
import {
  checkCount,
  checkMaxJsonDepth,
  checkMaxMessageBytes,
  checkTimerMs,
  dispatchParsed,
  JoinedWriter,
  type LineSink,
} from '@mcpkit/jsonrpc/internal';
import { applyShellPrefix, resolveCommand } from './command-line.js';
import { type InheritEnv, inheritedEnvironment } from './environment.js';
import { ProcessExitedError, ProcessSpawnError } from './errors.js';
import { isAlive, signalTree, snapshotTree, type TreeMember } from './process-tree.js';
import { TextRingBuffer } from './ring-buffer.js';

/** How `close()` escalates: end stdin, then SIGINT, SIGTERM and SIGKILL to the whole tree. */
export const stdioCloseDefaults = Object.freeze({
  /** Wait after ending stdin before the first signal. */
  stdinGraceMs: 0,
  /** Wait after SIGINT before SIGTERM. */
  sigintGraceMs: 100,
  /** Wait after SIGTERM before SIGKILL. */
  sigtermGraceMs: 400,
});

/** 64 KiB of stderr is kept for error messages. */
export const DEFAULT_STDERR_BUFFER_CHARS = 64 * 1024;

export interface StdioTransportOptions {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Merged over the inherited environment. */
  env?: Record<string, string>;
  /** Which of this process's variables the server inherits. Default `'safe'`. */
  inheritEnv?: InheritEnv;
  /** Run `prefix "<command> <args>"` instead, e.g. a sandbox wrapper. */
  shellPrefix?: string;
  /** Server name for error messages. */
  name?: string;
  /** Largest message accepted from the server. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a message. Default 256 (`DEFAULT_MAX_JSON_DEPTH`). */
  maxJsonDepth?: number;
  /** How much stderr to keep (characters; `0` keeps none). Default 64 KiB. */
  stderrBufferChars?: number;
  /**
   * When messages sent to the server leave. `'tick'` (default): those sent in one tick go
   * out in one write at the tick's end (four at a time, as they are sent, when a burst has
   * more). `'turn'`: the same, but after a write of one message,
   * the next ones sent in the same turn of the event loop wait for the turn's end and leave
   * together: for a host that sends one message per incoming event (a gateway forwarding
   * HTTP requests that one poll brought), one write per loop turn instead of one per request.
   * A message sent in a later turn, such as the next lone request, leaves at its tick's end.
   */
  joinWrites?: 'tick' | 'turn';
  closeTimeline?: Partial<typeof stdioCloseDefaults>;
  /** Receives everything the server writes to stderr. Never written to our stdout. */
  onstderr?: (text: string) => void;
  /** Receives non-fatal oddities, such as non-JSON lines on stdout (which are skipped). */
  onwarning?: (warning: Error) => void;
  /** Injected for tests and for hosts that wrap process creation. */
  spawn?: typeof nodeSpawn;
  platform?: NodeJS.Platform;
  /** The environment `inheritEnv` reads from. Default `process.env`. */
  sourceEnv?: NodeJS.ProcessEnv;
}

const capabilities: TransportCapabilities = Object.freeze({
  sendBeforeStart: false,
  serverToClientRequests: true,
  sessions: false,
});

const live = new Set<StdioTransport>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // If the host exits without closing, do not leave servers behind.
  process.on('exit', () => {
    for (const transport of live) transport.killNow();
  });
}

/**
 * Runs an MCP server as a child process and exchanges NDJSON messages over its
 * stdin/stdout. The child gets its own process group so that `close()` (and an
 * unexpected exit) can take down everything it started.
 */
export class StdioTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  onstderr: ((text: string) => void) | undefined;
  onwarning: ((warning: Error) => void) | undefined;
  readonly capabilities = capabilities;
  readonly description: string;

  private readonly options: StdioTransportOptions;
  private readonly platform: NodeJS.Platform;
  private readonly stderr: TextRingBuffer;
  private readonly framer: NdjsonFramer;
  private child: ChildProcess | undefined;
  private groupId: number | undefined;
  private state: 'new' | 'starting' | 'open' | 'closing' | 'closed' = 'new';
  private exited: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** The ids of the requests in the lines not yet handed to stdin (one write per tick). */
  private batch: JsonRpcId[] = [];
  /** The id of the request on the batch's last line; undefined when that line is no request. */
  private tail: JsonRpcId | undefined;
  /** Requests known never to have reached the child whole (see `wasUnsent`). */
  private readonly unsent = new Set<JsonRpcId>();
  /** Messages sent in one tick (or loop turn, see `joinWrites`) go out in one write to the child's stdin. */
  private readonly writer: JoinedWriter;
  private readonly sinkOfBatch = (): LineSink | undefined => {
    const stdin = this.child?.stdin;
    const batch = this.batch;
    const last = this.tail;
    this.batch = [];
    this.tail = undefined;
    if (!stdin || stdin.destroyed) {
      // Nothing of this batch is written.
      for (const id of batch) this.unsent.add(id);
      return undefined;
    }
    if (last === undefined) return stdin;
    // When a write fails, its last byte was not written: the request on the last line never
    // reached the child whole, so it never ran. (Earlier lines may have: they are unknown.)
    return {
      write: (data: string) =>
        stdin.write(data, (error) => {
          if (error) this.unsent.add(last);
        }),
      once: (event: 'drain', listener: () => void) => stdin.once(event, listener),
      off: (event: 'drain', listener: () => void) => stdin.off(event, listener),
    };
  };

  constructor(options: StdioTransportOptions) {
    if (!options.command) throw new TypeError('StdioTransport: "command" is required');
    const owner = 'StdioTransport';
    checkMaxMessageBytes(owner, options.maxMessageBytes);
    checkMaxJsonDepth(owner, options.maxJsonDepth);
    if (
      options.joinWrites !== undefined &&
      options.joinWrites !== 'tick' &&
      options.joinWrites !== 'turn'
    )
      throw new TypeError(`${owner}: "joinWrites" must be 'tick' or 'turn'`);
    checkCount(owner, 'stderrBufferChars', options.stderrBufferChars, { min: 0 });
    for (const key of ['stdinGraceMs', 'sigintGraceMs', 'sigtermGraceMs'] as const)
      checkTimerMs(owner, `closeTimeline.${key}`, options.closeTimeline?.[key], { zero: true });
    this.options = options;
    this.writer = new JoinedWriter(this.sinkOfBatch, options.joinWrites);
    this.platform = options.platform ?? process.platform;
    this.onstderr = options.onstderr;
    this.onwarning = options.onwarning;
    this.description = options.name
      ? `server "${options.name}"`
      : `stdio "${[options.command, ...(options.args ?? [])].join(' ')}"`;
    this.stderr = new TextRingBuffer(options.stderrBufferChars ?? DEFAULT_STDERR_BUFFER_CHARS);
    this.framer = new NdjsonFramer({
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      ...(options.maxJsonDepth !== undefined ? { maxJsonDepth: options.maxJsonDepth } : {}),
      onvalue: (value) => this.deliver(value),
      onerror: (error) => this.framingError(error),
    });
  }

  /** The process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last `lines` lines the server wrote to stderr. */
  stderrTail(lines = 20): string {
    return this.stderr.lastLines(lines);
  }

  start(): Promise<void> {
    if (this.state !== 'new') {
      return Promise.reject(
        new AlreadyStartedError(
          `${this.description}: start() may be called only once; create a new transport to reconnect`,
        ),
      );
    }
    this.state = 'starting';
    const o = this.options;
    const env = {
      ...inheritedEnvironment(o.inheritEnv ?? 'safe', o.sourceEnv ?? process.env, this.platform),
      ...o.env,
    };
    let { command, args } = o.shellPrefix
      ? applyShellPrefix(o.shellPrefix, o.command, o.args ?? [])
      : { command: o.command, args: [...(o.args ?? [])] };
    const resolved = resolveCommand(command, args, {
      platform: this.platform,
      env,
      ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    });
    command = resolved.command;
    args = resolved.args;
    const spawnOptions: SpawnOptions = {
      cwd: o.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A new process group (POSIX) lets close() signal every descendant at once.
      detached: this.platform !== 'win32',
      windowsHide: true,
      windowsVerbatimArguments: resolved.windowsVerbatimArguments ?? false,
    };
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = (o.spawn ?? nodeSpawn)(command, args, spawnOptions);
      } catch (error) {
        this.state = 'closed';
        reject(new ProcessSpawnError(this.description, o.command, error as NodeJS.ErrnoException));
        return;
      }
      this.child = child;
      const onSpawnError = (error: NodeJS.ErrnoException) => {
        this.state = 'closed';
        reject(new ProcessSpawnError(this.description, o.command, error));
      };
      child.once('error', onSpawnError);
      child.once('spawn', () => {
        child.off('error', onSpawnError);
        child.on('error', (error) => this.onerror?.(error));
        this.groupId = this.platform === 'win32' ? undefined : child.pid;
        this.state = 'open';
        live.add(this);
        installExitHook();
        resolve();
      });
      this.exited = new Promise<void>((done) => {
        child.once('exit', (code, signal) => {
          this.exitInfo = { code, signal };
          done();
          void this.handleExit();
        });
      });
      child.stdout!.on('data', (chunk: Buffer) => this.framer.push(chunk));
      child.stdout!.on('end', () => this.framer.end());
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => {
        this.stderr.append(text);
        this.onstderr?.(text);
      });
      // EPIPE when the child dies mid-write: the exit handler reports it.
      child.stdin!.on('error', () => {});
    });
  }

  send(message: JsonRpcMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.state !== 'open' || !stdin || stdin.destroyed || !stdin.writable) {
      return Promise.reject(
        new ConnectionClosedError(`${this.description}: cannot send, the process is not running`, {
          cause: this.exitError(),
          unsent: true,
        }),
      );
    }
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      return Promise.reject(error);
    }
    // Only requests are tracked: only they wait for an answer that the close settles.
    const request = 'method' in message && 'id' in message;
    if (request) this.batch.push(message.id);
    this.tail = request ? message.id : undefined;
    return this.writer.write(line);
  }

  /**
   * After the close: request `id` never reached the child whole (its write failed, or it was
   * still unwritten when the process went), so the child cannot have run it.
   */
  wasUnsent(id: JsonRpcId): boolean {
    return this.unsent.has(id);
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    if (this.state === 'new' || this.state === 'closed') {
      this.state = 'closed';
      this.closing = Promise.resolve();
      return this.closing;
    }
    this.state = 'closing';
    this.closing = this.terminate().then(() => this.finish(undefined));
    return this.closing;
  }

  /** Synchronous last resort (host exiting): SIGKILL the tree. */
  killNow(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.exitInfo) return;
    signalTree(
      this.groupId,
      [{ pid, startTime: undefined, groupId: this.groupId }],
      'SIGKILL',
      this.platform,
    );
  }

  private async terminate(): Promise<void> {
    const child = this.child!;
    const pid = child.pid!;
    const timeline = { ...stdioCloseDefaults, ...this.options.closeTimeline };
    const members = snapshotTree(pid, this.platform);
    if (!members.some((m) => m.pid === pid))
      members.unshift({ pid, startTime: undefined, groupId: this.groupId });
    this.writer.close(true); // what was sent before close() still goes out
    child.stdin?.end();
    const steps: Array<[NodeJS.Signals, number]> = [
      ['SIGINT', timeline.sigintGraceMs],
      ['SIGTERM', timeline.sigtermGraceMs],
      ['SIGKILL', 0],
    ];
    if (timeline.stdinGraceMs > 0) await this.waitForTree(members, timeline.stdinGraceMs);
    for (const [signal, graceMs] of steps) {
      if (!this.treeAlive(members)) break;
      signalTree(this.groupId, members, signal, this.platform);
      if (signal === 'SIGKILL') await this.waitForTree(members, 1000);
      else await this.waitForTree(members, graceMs);
    }
    await this.exited;
  }

  private treeAlive(members: readonly TreeMember[]): boolean {
    if (!this.exitInfo) return true;
    return members.some((m) => isAlive(m, this.platform));
  }

  private async waitForMembers(members: readonly TreeMember[], ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (members.some((m) => isAlive(m, this.platform)) && Date.now() < deadline) await sleep(5);
  }

  private async waitForTree(members: readonly TreeMember[], ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.treeAlive(members) && Date.now() < deadline) {
      await sleep(Math.min(10, Math.max(1, deadline - Date.now())));
    }
  }

  private async handleExit(): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    // An unexpected exit: let the last stdout bytes arrive, then sweep what it left behind.
    const stdout = this.child?.stdout;
    if (stdout && !stdout.readableEnded) {
      await Promise.race([new Promise((r) => stdout.once('end', r)), sleep(50)]);
    }
    // Writes still on their way learn their fate first: one that failed marks its request
    // unsent (`wasUnsent`) before the close settles the requests.
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed && !stdin.closed) {
      stdin.end();
      await Promise.race([new Promise((r) => stdin.once('close', r)), sleep(200)]);
    }
    if (this.groupId !== undefined) {
      // Whatever the server left in its process group goes with it.
      const leftovers = snapshotTree(this.groupId, this.platform);
      if (leftovers.length > 0) {
        signalTree(this.groupId, leftovers, 'SIGTERM', this.platform);
        await this.waitForMembers(leftovers, 100);
        signalTree(this.groupId, leftovers, 'SIGKILL', this.platform);
        await this.waitForMembers(leftovers, 1000);
      }
    }
    this.finish(this.exitError());
  }

  private exitError(): ProcessExitedError | undefined {
    if (!this.exitInfo) return undefined;
    return new ProcessExitedError(
      this.description,
      this.exitInfo.code,
      this.exitInfo.signal,
      this.stderrTail(10),
    );
  }

  private finish(cause: Error | undefined): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    live.delete(this);
    for (const id of this.batch) this.unsent.add(id);
    this.batch = [];
    this.writer.close(false);
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    this.child?.stdin?.destroy();
    this.onclose?.(cause);
  }

  private deliver(value: unknown): void {
    dispatchParsed(value, this.emitMessage, this.emitError);
  }

  private readonly emitMessage = (message: JsonRpcMessage): void => {
    this.onmessage?.(message);
  };

  private readonly emitError = (error: Error): void => {
    this.onerror?.(error);
  };

  private framingError(error: ParseError | MessageTooLargeError | JsonTooDeepError): void {
    if (JsonTooDeepError.isInstance(error)) {
      this.onerror?.(
        new JsonTooDeepError(`${this.description}: ${error.message}`, error.maxDepth, error.depth, {
          id: error.id,
          kind: error.kind,
          serverName: this.options.name,
          cause: error,
        }),
      );
      return;
    }
    if (MessageTooLargeError.isInstance(error)) {
      this.onerror?.(
        new MessageTooLargeError(`${this.description}: ${error.message}`, error.limitBytes, {
          id: error.id,
          kind: error.kind,
          serverName: this.options.name,
          cause: error,
        }),
      );
      return;
    }
    // Servers that log to stdout are common; their lines are skipped, not fatal.
    this.onwarning?.(error);
  }
}
