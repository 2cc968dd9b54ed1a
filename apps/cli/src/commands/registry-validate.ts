import {
  type RegistryEntry,
  RegistryError,
  RegistryErrorCode,
  type RegistrySchemaError,
} from '@mcpkit/config/registry';
import schema from './registry-schema/server.schema.json' with { type: 'json' };

/**
 * Every `server.json` a registry returns, checked against the official `server.json` JSON
 * Schema (`registry-schema/server.schema.json`, modelcontextprotocol/registry@145c2ec, draft-07)
 * by ajv. Loaded only by `search` and `install` (ajv and the compiled schema cost ~100 ms,
 * which no other command pays); compiled once per process.
 */

/** The schema errors kept for a message (the count says how many there were in all). */
export const SHOWN_SCHEMA_ERRORS = 3;

export interface SchemaCheck {
  /** The first `SHOWN_SCHEMA_ERRORS` places it fails, in the validator's order; empty when valid. */
  errors: RegistrySchemaError[];
  /** How many places fail in all. */
  count: number;
}

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  /** The failing rule's value and the schema object it is in (`verbose`). */
  schema?: unknown;
  parentSchema?: unknown;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
let validator: Promise<Validate> | undefined;

function compile(): Promise<Validate> {
  validator ??= import('ajv').then((module) => {
    const Ajv = ((module as { default?: unknown }).default ?? module) as new (
      options: object,
    ) => {
      addFormat(name: string, check: (value: string) => boolean): unknown;
      compile(schema: object): Validate;
    };
    // The schema is OpenAPI-generated (an `example` keyword ajv does not know): not strict,
    // and nothing logged. `uri` is checked as an absolute URL (the WHATWG parser: what the CLI
    // itself parses URLs with), the one format the schema uses.
    // `verbose`: each error carries its rule, which names where in the schema it is.
    const ajv = new Ajv({ strict: false, allErrors: true, logger: false, verbose: true });
    ajv.addFormat('uri', (value) => URL.canParse(value));
    return ajv.compile(schema);
  });
  return validator;
}

/** Checks one `server.json` against the official schema. */
export async function checkServerJson(server: unknown): Promise<SchemaCheck> {
  const validate = await compile();
  if (validate(server)) return { errors: [], count: 0 };
  const all = validate.errors ?? [];
  return {
    errors: all.slice(0, SHOWN_SCHEMA_ERRORS).map((e) => ({
      instancePath: e.instancePath,
      schemaPath: schemaPathOf(e),
      message: messageOf(e),
    })),
    count: Math.max(all.length, 1),
  };
}

let pointers: Map<object, string> | undefined;

/**
 * Where the failing rule is in the whole schema. ajv's own `schemaPath` starts again at each
 * `$ref` (`#/properties/version/not` for a rule of `#/definitions/Package`), so the rule's
 * schema object is looked up among the schema's objects instead.
 */
function schemaPathOf(e: AjvError): string {
  if (!pointers) {
    pointers = new Map();
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      pointers!.set(node, at);
      for (const [key, value] of Object.entries(node))
        walk(value, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    };
    walk(schema, '#');
  }
  const parent =
    typeof e.parentSchema === 'object' && e.parentSchema !== null && pointers.get(e.parentSchema);
  return parent ? `${parent}/${e.keyword}` : e.schemaPath;
}

/** ajv's words, but a `not` rule says what it forbids (`must not be "latest"`). */
function messageOf(e: AjvError): string {
  const rule = e.schema as { const?: unknown } | undefined;
  if (e.keyword === 'not' && rule && 'const' in rule)
    return `must not be ${JSON.stringify(rule.const)}`;
  return e.message ?? 'is not valid';
}

/** `/packages/0/version must not be "latest" (#/definitions/Package/properties/version/not)`, ... */
export function describeSchemaErrors(check: SchemaCheck): string {
  const shown = check.errors
    .map((e) => `${e.instancePath || '(the document)'} ${e.message} (${e.schemaPath})`)
    .join('; ');
  const more = check.count - check.errors.length;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}

/** Throws `MCPKIT_REGISTRY_SCHEMA_INVALID` naming the registry, the server and the first errors. */
export async function assertServerJson(entry: RegistryEntry): Promise<void> {
  const check = await checkServerJson(entry.server);
  if (check.count === 0) return;
  throw new RegistryError(
    RegistryErrorCode.SchemaInvalid,
    `registry ${entry.registry} serves server "${entry.server.name}" ${entry.server.version} with a server.json that does not match the official schema: ${describeSchemaErrors(check)}`,
    {
      registry: entry.registry,
      server: entry.server.name,
      schemaErrors: check.errors,
      schemaErrorCount: check.count,
    },
  );
}
