import type { Io } from './config-commands.js';
import { SecretScrubber } from './redact-output.js';
import { neutralizeBlock, terminalSafeJson } from './terminal.js';

export interface OutputOptions {
  /** Results of `call`, `read`, `prompt` are neutralized only on a terminal (or `sanitize`). */
  stdoutIsTTY: boolean;
  /** `--sanitize`: neutralize results even when stdout is a pipe or a file. */
  sanitize: boolean;
  /** `--show-secrets`: no scrubbing at all. */
  showSecrets: boolean;
  /** Nothing more is printed once this says so (after Ctrl-C, half-done output is noise). */
  muted?: () => boolean;
}

/**
 * Everything the CLI prints goes through here. Every write is scrubbed of secrets (unless
 * `--show-secrets`); stderr and listings always have terminal controls neutralized; a
 * server's result (`call`, `read`, `prompt`) stays byte-exact when stdout is not a
 * terminal, so that `mcpkit call … > file` keeps what the server sent.
 */
export class Output implements Io {
  readonly scrubber = new SecretScrubber();

  constructor(
    private readonly io: Io,
    private readonly options: OutputOptions,
  ) {}

  private scrub(text: string): string {
    if (this.options.showSecrets) return text;
    // A JSON document (e.g. `list --json`) is scrubbed value by value, so it stays JSON.
    const start = text.trimStart()[0];
    if (start === '{' || start === '[') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return this.scrubber.text(text);
      }
      return `${JSON.stringify(this.scrubber.value(parsed), null, 2)}${text.endsWith('\n') ? '\n' : ''}`;
    }
    return this.scrubber.text(text);
  }

  private get muted(): boolean {
    return this.options.muted?.() ?? false;
  }

  /** Listings and messages of our own (with server text inside): always neutralized. */
  readonly stdout = (text: string): void => {
    if (this.muted) return;
    this.io.stdout(neutralizeBlock(this.scrub(text)));
  };

  /** Errors, warnings, server stderr: always neutralized. */
  readonly stderr = (text: string): void => {
    if (this.muted) return;
    this.io.stderr(neutralizeBlock(this.scrub(text)));
  };

  /**
   * A line with a URL the user must open (the authorization URL of `login`): neutralized,
   * known secrets scrubbed, but the URL's query kept, or the link would not work.
   */
  readonly link = (text: string): void => {
    if (this.muted) return;
    const clean = this.options.showSecrets ? text : this.scrubber.text(text, { urls: false });
    this.io.stderr(neutralizeBlock(clean));
  };

  /** A server's answer as text: exact unless it goes to a terminal or `--sanitize`. */
  result(text: string): void {
    if (this.muted) return;
    const clean = this.options.showSecrets ? text : this.scrubber.text(text);
    this.io.stdout(
      this.options.stdoutIsTTY || this.options.sanitize ? neutralizeBlock(clean) : clean,
    );
  }

  /** A JSON document: the same value, without terminal controls in its text. */
  json(value: unknown): void {
    if (this.muted) return;
    const clean = this.options.showSecrets ? value : this.scrubber.value(value);
    this.io.stdout(`${terminalSafeJson(clean)}\n`);
  }
}
