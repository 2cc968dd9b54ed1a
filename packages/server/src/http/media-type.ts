/** RFC 9110 `token` characters: what a type or a subtype is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * The media type of a `Content-Type` value (RFC 9110 §8.3.1): `type/subtype`, lowercased,
 * without its parameters; undefined when the value is not one. Only what stands before the
 * first `;` counts, so `text/plain;charset=application/json` is `text/plain`.
 */
export function mediaTypeOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const bare = (value.split(';', 1)[0] ?? '').trim().toLowerCase();
  const slash = bare.indexOf('/');
  if (slash === -1) return undefined;
  const type = bare.slice(0, slash);
  const subtype = bare.slice(slash + 1);
  return TOKEN.test(type) && TOKEN.test(subtype) ? `${type}/${subtype}` : undefined;
}

/**
 * Whether an `Accept` value (RFC 9110 §12.5.1) admits `type` (`type/subtype`, lowercase):
 * a range names it, or `<type>/*`, or `*∕*`, with a weight above 0. Ranges are compared
 * whole: `application/json-seq` does not admit `application/json`. A missing header names
 * nothing (false): the callers pick their default answer for it.
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const [major] = type.split('/', 1);
  for (const range of accept.split(',')) {
    const [head = '', ...params] = range.split(';');
    const name = head.trim().toLowerCase();
    if (name !== type && name !== `${major}/*` && name !== '*/*') continue;
    const q = params
      .map((p) => p.trim().toLowerCase())
      .find((p) => p.startsWith('q='))
      ?.slice(2);
    if (q === undefined || Number(q) > 0) return true;
  }
  return false;
}
