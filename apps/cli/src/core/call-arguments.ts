import { UsageError } from './io.js';

/** The most a `-` argument reads from stdin: a tool's arguments, not a data dump. */
export const STDIN_ARGUMENTS_MAX_BYTES = 4 * 1024 * 1024;

interface PropertySchema {
  type?: string | string[];
}

/**
 * `mcpkit call <server> <tool> [args...]` takes one of: nothing, one JSON object, `-` (a
 * JSON object on stdin), or `key=value` pairs. A pair's value is typed from the tool's
 * input schema: `n=3` is the number 3 when the property is a number or integer, `on=true`
 * a boolean, an array or object property takes JSON; anything else stays a string (so
 * `zip=01234` keeps its zero).
 */
/**
 * The arguments to send when the user gave none: `{}` when the tool's input schema is an
 * object (`type: "object"`, or `properties`), since servers that validate their input
 * reject a call without `arguments` (SDK v1: -32602 `expected "object", received
 * "undefined"`); otherwise nothing, as the user asked.
 */
export function noArguments(inputSchema: unknown): Record<string, unknown> | undefined {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined;
  const { type, properties } = inputSchema as { type?: unknown; properties?: unknown };
  const object =
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (typeof properties === 'object' && properties !== null);
  return object ? {} : undefined;
}

export function isPairs(words: readonly string[]): boolean {
  return words.length > 0 && words.every((w) => /^[^={}[\]"\s][^=]*=/.test(w));
}

export function typedPairs(
  words: readonly string[],
  inputSchema: { properties?: Record<string, PropertySchema> } | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    const key = word.slice(0, at);
    const text = word.slice(at + 1);
    const declared = inputSchema?.properties?.[key]?.type;
    const types = Array.isArray(declared) ? declared : declared ? [declared] : [];
    out[key] = typed(key, text, types);
  }
  return out;
}

function typed(key: string, text: string, types: string[]): unknown {
  if (types.includes('string') || types.length === 0) return text;
  if (types.includes('integer') || types.includes('number')) {
    const n = text.trim() === '' ? Number.NaN : Number(text);
    if (
      !Number.isFinite(n) ||
      (types.includes('integer') && !types.includes('number') && !Number.isInteger(n))
    )
      throw new UsageError(
        `"${key}" must be ${types.includes('integer') ? 'a whole number' : 'a number'}, got "${text}"`,
      );
    return n;
  }
  if (types.includes('boolean')) {
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new UsageError(`"${key}" must be true or false, got "${text}"`);
  }
  if (types.includes('array') || types.includes('object') || types.includes('null')) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new UsageError(`"${key}" takes JSON here: ${(error as Error).message}`);
    }
  }
  return text;
}

/** A JSON object from stdin, bounded. */
export async function readStdinJson(
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<Record<string, unknown>> {
  let text = '';
  let bytes = 0;
  for await (const chunk of stdin) {
    const piece = typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    bytes += Buffer.byteLength(piece);
    if (bytes > STDIN_ARGUMENTS_MAX_BYTES)
      throw new UsageError(
        `the tool arguments on stdin are over ${STDIN_ARGUMENTS_MAX_BYTES} bytes; pass a smaller JSON object`,
      );
    text += piece;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the tool arguments on stdin must be a JSON object: ${(error as Error).message}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`the tool arguments on stdin must be a JSON object, like {"a": 1}`);
  return value as Record<string, unknown>;
}
