import { neutralize } from './neutralize.js';

/** What a server's `notifications/progress` carries. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** One request's progress as the terminal shows it; `stop()` erases it. */
export interface ProgressTicket {
  onprogress(update: ProgressUpdate): void;
  stop(): void;
}

/**
 * The progress of a long request (`call`): one line on a terminal, drawn when the server's
 * first progress notification comes, redrawn in place (message, progress/total, elapsed
 * seconds), erased when the answer comes. Whatever else is printed meanwhile erases it
 * first (`hide`) and draws it again after (`show`), so no line is left half overwritten.
 * Made only for a terminal: into a pipe, a file or with `--json` nothing is drawn, and no
 * progress token is sent.
 */
export class ProgressLine {
  private current:
    | { label: string; started: number; update?: ProgressUpdate; timer?: NodeJS.Timeout }
    | undefined;
  private drawn = false;
  private paused = 0;

  constructor(private readonly stream: NodeJS.WritableStream & { columns?: number }) {}

  /** Starts showing the progress of one request (the one before it is stopped). */
  start(label: string): ProgressTicket {
    if (this.current?.timer) clearInterval(this.current.timer);
    this.erase();
    const entry: NonNullable<ProgressLine['current']> = { label, started: Date.now() };
    this.current = entry;
    return {
      onprogress: (update) => {
        if (this.current !== entry) return;
        entry.update = update;
        if (!entry.timer) {
          // The seconds go on between notifications: a slow step still shows it is alive.
          entry.timer = setInterval(() => this.draw(), 1000);
          entry.timer.unref();
        }
        this.draw();
      },
      stop: () => {
        if (this.current !== entry) return;
        if (entry.timer) clearInterval(entry.timer);
        this.erase();
        this.current = undefined;
      },
    };
  }

  /** Erases the line while something else is printed or asked; the returned function shows it again. */
  hide(): () => void {
    this.paused++;
    this.erase();
    let shown = false;
    return () => {
      if (shown) return;
      shown = true;
      this.paused--;
      this.draw();
    };
  }

  /** Runs `write` with the line erased, then draws it again. */
  around(write: () => void): void {
    if (!this.drawn) {
      write();
      return;
    }
    const show = this.hide();
    write();
    show();
  }

  private text(): string | undefined {
    const c = this.current;
    if (!c?.update) return undefined;
    const { progress, total, message } = c.update;
    const seconds = Math.floor((Date.now() - c.started) / 1000);
    const count = total !== undefined ? `${progress}/${total}` : String(progress);
    // The server's words: its control characters shown escaped, on one line.
    const said = message ? `${neutralize(message.replace(/\s+/g, ' '))} · ` : '';
    const line = `… ${neutralize(c.label)}: ${said}${count} · ${seconds} s`;
    // One terminal line: longer text would wrap, and the erase would leave its first part.
    const width = Math.max(10, (this.stream.columns ?? 80) - 1);
    const chars = [...line];
    return chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : line;
  }

  private draw(): void {
    if (this.paused > 0) return;
    const text = this.text();
    if (text === undefined) return;
    this.stream.write(`\r\x1b[2K${text}`);
    this.drawn = true;
  }

  private erase(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
