import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from '@mcpkit/jsonrpc';
import { parameterNames, parametersOf } from '../terminal/signature.js';
import { UsageError } from './io.js';
import { didYouMean } from './suggest.js';

type Schema = Record<string, unknown>;
type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; keyword: string; message?: string }> | null;
};

const isSchema = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema takes keys it does not name (`additionalProperties` true or a schema, patterns). */
function takesOtherKeys(schema: Schema): boolean {
  const extra = schema.additionalProperties;
  return (
    extra === true ||
    isSchema(extra) ||
    isSchema(schema.patternProperties) ||
    schema.unevaluatedProperties === true ||
    isSchema(schema.unevaluatedProperties)
  );
}

/**
 * The arguments of `mcpkit call` checked against the tool's input schema before they are
 * sent: a key it does not declare (when it takes no other keys), a required one missing,
 * then whatever else the schema says (types, enums, ranges), by ajv — the validator the
 * client checks output schemas with. A usage error names the tool and each problem; what
 * the schema cannot say (or a schema ajv cannot compile) is left to the server.
 */
export async function checkArguments(
  server: string,
  tool: string,
  inputSchema: unknown,
  args: Record<string, unknown> | undefined,
  /** How the user sends the call unchecked, in the words of where they typed it. */
  bypass = '--no-check',
): Promise<void> {
  if (!isSchema(inputSchema)) return;
  const given = args ?? {};
  const names = parameterNames(inputSchema);
  const params = parametersOf(inputSchema);
  const described = (n: string) => {
    const p = params.find((x) => x.name === n);
    return p ? `${n}: ${p.type}` : n;
  };
  const what = `tool "${tool}" of server "${server}"`;
  const problems: string[] = [];
  if (isSchema(inputSchema.properties) && !takesOtherKeys(inputSchema)) {
    for (const key of Object.keys(given).filter((k) => !names.includes(k)))
      problems.push(`it has no parameter "${key}"${didYouMean(key, names)}`);
  }
  const required = Array.isArray(inputSchema.required)
    ? inputSchema.required.filter((r): r is string => typeof r === 'string')
    : [];
  const missing = required.filter((r) => !(r in given));
  if (missing.length > 0)
    problems.push(`it needs ${missing.map((m) => `"${described(m)}"`).join(', ')}`);
  if (problems.length === 0) {
    const validate = await compiled(inputSchema);
    if (validate && !validate(given))
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'required' || e.keyword === 'additionalProperties') continue;
        const at = e.instancePath
          ? `"${e.instancePath.slice(1).replaceAll('/', '.')}"`
          : 'the arguments';
        problems.push(`${at} ${e.message ?? 'do not match its input schema'}`);
      }
  }
  if (problems.length === 0) return;
  const known =
    params.length === 0
      ? 'it takes no parameters'
      : `its parameters: ${params.map((p) => `${p.name}${p.required ? '' : '?'}: ${p.type}`).join(', ')}`;
  throw new UsageError(
    `${what}: ${[...new Set(problems)].slice(0, 5).join('; ')} (${known}; ${bypass} sends the call as given)`,
  );
}

/** ajv (2020-12 unless the schema names draft-07) compiles the schema; undefined when it cannot. */
async function compiled(schema: Schema): Promise<Validate | undefined> {
  try {
    assertJsonDepth(schema, DEFAULT_MAX_JSON_DEPTH, 'the input schema');
    const draft7 = /draft-0[467]/.test(String(schema.$schema ?? ''));
    const module = draft7 ? await import('ajv') : await import('ajv/dist/2020.js');
    const Ajv = ((module as { default?: unknown }).default ?? module) as new (
      options: object,
    ) => { compile(schema: object): Validate };
    return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
  } catch {
    // A schema ajv cannot compile (or too deep): the server judges the arguments.
    return undefined;
  }
}
