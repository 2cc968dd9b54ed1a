import type { Io } from '../core/io.js';
import { neutralizeBlock, terminalSafeJson } from './neutralize.js';
import { redactUrls } from './redact-output.js';

export interface OutputOptions {
  /** Results of `call`, `read`, `prompt` are neutralized only on a terminal (or `sanitize`). */
  stdoutIsTTY: boolean;
  /** `--sanitize`: neutralize results even when stdout is a pipe or a file. */
  sanitize: boolean;
  /** `--show-secrets`: URLs in the CLI's messages are shown whole. */
  showSecrets: boolean;
  /** Nothing more is printed once this says so (after Ctrl-C, half-done output is noise). */
  muted?: () => boolean;
}

/**
 * Everything the CLI prints goes through here. What a server sends is data: a result
 * (`call`, `read`, `prompt`) and `--json` keep it exact when stdout is not a terminal, and
 * listings and server stderr only have terminal controls neutralized — no text is ever
 * searched for config values. Secrets are hidden by position where the CLI prints its
 * configuration (the entries themselves are redacted by `redactServerConfig` before they
 * get here) and in its own messages on stderr, where every URL goes through `redactUrl`.
 */
export class Output implements Io {
  constructor(
    private readonly io: Io,
    private readonly options: OutputOptions,
  ) {}

  /** stdout is a terminal: results are shown for a person (escaped, duplicates once). */
  get terminal(): boolean {
    return this.options.stdoutIsTTY;
  }

  private get muted(): boolean {
    return this.options.muted?.() ?? false;
  }

  /**
   * A message of the CLI's own that may quote a configured URL (a state's reason, an HTTP
   * error): its URLs' user info and credential query values hidden, unless --show-secrets.
   */
  readonly redact = (text: string): string => (this.options.showSecrets ? text : redactUrls(text));

  /** Listings (with server text inside) and lines of our own: always neutralized. */
  readonly stdout = (text: string): void => {
    if (this.muted) return;
    this.io.stdout(neutralizeBlock(text));
  };

  /** The CLI's own errors and warnings: URLs redacted (see `redact`), always neutralized. */
  readonly stderr = (text: string): void => {
    if (this.muted) return;
    this.io.stderr(neutralizeBlock(this.redact(text)));
  };

  /**
   * A server's own words on stderr (its stderr lines, what an elicitation says): data,
   * neutralized and otherwise as sent.
   */
  readonly serverStderr = (text: string): void => {
    if (this.muted) return;
    this.io.stderr(neutralizeBlock(text));
  };

  /**
   * A line with a URL the user must open (the authorization URL of `login`): neutralized,
   * the URL whole, or the link would not work.
   */
  readonly link = (text: string): void => {
    if (this.muted) return;
    this.io.stderr(neutralizeBlock(text));
  };

  /** A server's answer as text: exact unless it goes to a terminal or `--sanitize`. */
  result(text: string): void {
    if (this.muted) return;
    this.io.stdout(
      this.options.stdoutIsTTY || this.options.sanitize ? neutralizeBlock(text) : text,
    );
  }

  /** A JSON document: the same value, without terminal controls in its text. */
  json(value: unknown): void {
    if (this.muted) return;
    this.io.stdout(`${terminalSafeJson(value)}\n`);
  }
}
