import { type ResolvedServer, redactUrl, scrubSecrets, secretValues } from '@mcpkit/config';

// A URL inside a message: scheme, `://`, then up to the first character that cannot be part
// of it in a message.
const URL_IN_TEXT = /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]+/g;
// Sentence punctuation right after a URL is not part of it.
const TRAILING = /[.,;:!?)\]}]+$/;

/**
 * A message of the CLI's own (an error, a warning, a state's reason) with every URL in it
 * through `redactUrl`: its user info and credential query values become `***`, by their
 * place in the parsed URL. Nothing else in the text is looked at: the CLI never searches
 * text for config values, so a value that happens to occur in it (`production`, `true`) is
 * never rewritten. Not for what a server sends (results, lists, resources, stderr): that is
 * data and is printed as sent.
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (url) => {
    const tail = TRAILING.exec(url)?.[0] ?? '';
    return redactUrl(url.slice(0, url.length - tail.length)) + tail;
  });
}

/**
 * What the shell keeps of a line the user typed: the credential values (header values, env
 * values under credential names, URL secrets — `secretValues`) of the enabled entries
 * replaced with `***`, in case the user pasted one into a `call`. This is the user's own
 * input, never a server's text; entries that are not enabled (pending, rejected, disabled)
 * have no say in it.
 */
export function historyScrubber(
  servers: readonly Pick<ResolvedServer, 'config' | 'status'>[],
): (line: string) => string {
  const secrets = servers
    .filter((s) => s.status === 'enabled')
    .flatMap((s) => secretValues(s.config));
  return (line) => scrubSecrets(line, secrets);
}
