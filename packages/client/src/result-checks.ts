import { isRecord } from '@mcpkit/jsonrpc/internal';
import { type CallToolResult, ClientMethod, fastCallToolResult } from '@mcpkit/protocol';
import type { z } from 'zod';
import { InvalidResultError } from './errors.js';

type Schemas = typeof import('@mcpkit/protocol/schemas');
/** The name of a zod schema exported by `@mcpkit/protocol/schemas`. */
export type SchemaName = {
  [K in keyof Schemas]: Schemas[K] extends z.ZodType ? K : never;
}[keyof Schemas];

let schemas: Promise<Schemas> | undefined;
/** zod and the schemas load on first need: a plain result never needs them. */
export function loadSchemas(): Promise<Schemas> {
  schemas ??= import('@mcpkit/protocol/schemas');
  return schemas;
}

/** An empty result (ping, setLevel, subscribe): an object whose `_meta`, if any, is an object. */
export const fastEmptyResult = (v: unknown): Record<string, unknown> | undefined =>
  isRecord(v) && (v._meta === undefined || isRecord(v._meta)) ? v : undefined;

/**
 * The server's own object once the protocol schema accepted it, not zod's copy. Every
 * protocol schema is loose, so the copy holds the same data, except that zod assigns as
 * it copies and so loses any key named `__proto__` (a plain key in JSON), and that it
 * fills in defaults (a tool result's missing `content`). The keys the copy added at the
 * top are set on the server's object; nothing it sent is dropped.
 */
function asCame<T>(raw: unknown, checked: T): T {
  if (!isRecord(raw) || !isRecord(checked) || raw === checked) return checked;
  for (const key in checked) if (!Object.hasOwn(raw, key)) raw[key] = checked[key];
  return raw as T;
}

/**
 * Checks what a server answered against the protocol schemas: a hand-written fast check
 * first, the zod schema only when that one is unsure. With validation off, results pass
 * as they came.
 */
export class ResultChecks {
  constructor(
    private readonly label: string,
    readonly enabled: boolean,
  ) {}

  check<T>(
    method: string,
    raw: unknown,
    schemaName: SchemaName,
    fast?: (raw: unknown) => T | undefined,
  ): T | Promise<T> {
    if (!this.enabled) return raw as T;
    const quick = fast?.(raw);
    if (quick !== undefined) return quick;
    return loadSchemas().then((all) =>
      asCame(raw, this.parse(method, all[schemaName] as z.ZodType<T>, raw)),
    );
  }

  parse<S extends z.ZodType>(method: string, schema: S, raw: unknown): z.output<S> {
    if (!this.enabled) return raw as z.output<S>;
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new InvalidResultError(
      this.label,
      method,
      `${where}${issue?.message ?? 'does not match the schema'}`,
      parsed.error,
    );
  }

  /** A `tools/call` (or `tasks/result`) result; an arrow, so the hot path passes it to `then`. */
  readonly toolResult = (raw: unknown): CallToolResult | Promise<CallToolResult> =>
    (this.enabled ? fastCallToolResult(raw) : (raw as CallToolResult)) ??
    this.check(ClientMethod.CallTool, raw, 'CallToolResultSchema');
}
