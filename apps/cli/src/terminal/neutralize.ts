/**
 * Server-controlled text made safe for a terminal. A server's tool names, descriptions,
 * results, error messages and stderr can carry escape sequences that a terminal acts on:
 * OSC 52 writes the clipboard, OSC 0 sets the window title, `ESC[2J` clears the screen,
 * a bare CR overwrites what was printed, bidi overrides reorder what the user reads.
 * Each such character is shown escaped (`\x1b`, `\r`, `\u009b`, `\u202e`) rather than
 * dropped, so the user sees that the server sent it. DEL, C1 and bidi controls are written
 * as `\uXXXX`: a raw one can only sit inside a string of a JSON document, where that escape
 * decodes to the same character, so neutralizing JSON text keeps it valid and exact.
 */

export interface NeutralizeOptions {
  /** Keep `\n` (and turn `\r\n` into `\n`): for multi-line text. Default false. */
  newlines?: boolean;
  /** Keep `\t`. Default false. */
  tabs?: boolean;
}

/**
 * Characters a terminal may act on: C0 controls, DEL, C1 controls, and the bidi
 * embedding/override/isolate controls plus the implicit marks (LRM, RLM, ALM).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters we neutralize
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: same set, global, for replacing
const UNSAFE_ALL = /\r\n|[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x20
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character a terminal could act on shown escaped. The result
 * never contains a C0 control (other than `\n`/`\t` where the options allow), DEL, a C1
 * control, or a bidi control. Text without any comes back unchanged (the same string).
 */
export function neutralize(text: string, options: NeutralizeOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  const newlines = options.newlines ?? false;
  const tabs = options.tabs ?? false;
  return text.replace(UNSAFE_ALL, (ch) => {
    if (ch === '\r\n') return newlines ? '\n' : '\\r\\n';
    if (ch === '\n' && newlines) return ch;
    if (ch === '\t' && tabs) return ch;
    return escapeOne(ch);
  });
}

/** Neutralize for multi-line text: newlines and tabs kept. */
export const neutralizeBlock = (text: string): string =>
  neutralize(text, { newlines: true, tabs: true });

/**
 * `JSON.stringify(value, null, 2)` whose text holds no character a terminal acts on, while
 * `JSON.parse` still gives back exactly `value`: JSON.stringify already escapes C0
 * controls; DEL, C1 and bidi controls are escaped here as `\uXXXX`.
 */
export function terminalSafeJson(value: unknown): string {
  // JSON.stringify leaves no raw C0 control, so only `\uXXXX` escapes are made here.
  return neutralize(JSON.stringify(value, null, 2) ?? 'null', { newlines: true });
}
