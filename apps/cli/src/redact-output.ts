import { type ResolvedServer, redactUrl, scrubSecrets, secretValues } from '@mcpkit/config';

// A URL inside free text (an error message, a stderr line): scheme, `://`, then up to
// the first character that cannot be part of it in a message.
const URL_IN_TEXT = /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]+/g;
// Sentence punctuation right after a URL is not part of it.
const TRAILING = /[.,;:!?)\]}]+$/;

/**
 * The CLI's one redaction rule for free text, on top of the structural redaction of
 * `@mcpkit/config` (`redactServerConfig`) for entries: every URL in the text goes through
 * `redactUrl` (user info and query values hidden), and every secret value of every
 * resolved server (header and env values, URL user info and query values, `${VAR}`
 * expansions included) is replaced with `***` wherever it appears — in a transport's error
 * message, a server's stderr, a tool's answer.
 */
export class SecretScrubber {
  private secrets: string[] = [];

  /** Adds every secret value of these servers' entries. */
  addServers(servers: readonly Pick<ResolvedServer, 'config'>[]): void {
    this.add(servers.flatMap((s) => secretValues(s.config)));
  }

  add(values: readonly string[]): void {
    this.secrets = [...new Set([...this.secrets, ...values])];
  }

  /**
   * `text` with URLs redacted and every known secret replaced with `***`. `urls: false`
   * leaves URLs whole (secret values in them are still replaced): for a URL the user has to
   * open, such as the authorization URL of `mcpkit login`.
   */
  text(text: string, options: { urls?: boolean } = {}): string {
    if (options.urls === false) return scrubSecrets(text, this.secrets);
    const urls = text.replace(URL_IN_TEXT, (url) => {
      const tail = TRAILING.exec(url)?.[0] ?? '';
      return redactUrl(url.slice(0, url.length - tail.length)) + tail;
    });
    // Longest secrets first, too short ones skipped: @mcpkit/config's rule.
    return scrubSecrets(urls, this.secrets);
  }

  /** A copy of a JSON value with `text()` applied to every string in it (keys included). */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        // A JSON document's keys are data too; `__proto__` stays a plain key.
        Object.defineProperty(out, this.text(k), {
          value: this.value(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return value;
  }
}
