import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH, McpkitError } from '@mcpkit/jsonrpc';
import type { CallToolResult } from '@mcpkit/protocol';
import { ClientErrorCode } from './errors.js';

/** A tool's `structuredContent` does not match the `outputSchema` it declared. */
export class OutputSchemaError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.OutputSchemaError';
  override readonly name = 'OutputSchemaError';
  readonly tool: string;
  constructor(label: string, tool: string, detail: string) {
    super(ClientErrorCode.OutputSchema, `${label}: tool "${tool}" returned ${detail}`);
    this.tool = tool;
  }
}

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

type AjvInstance = { compile(schema: object): Validate };
type Dialect = '2020-12' | '2019-09' | 'draft-07';
const validators = new Map<Dialect, Promise<AjvInstance>>();

/** The schema's declared dialect; 2020-12 when it declares none (the MCP default). */
function dialectOf(schema: object): Dialect {
  const declared = String((schema as { $schema?: unknown }).$schema ?? '');
  if (
    declared.includes('draft-07') ||
    declared.includes('draft-06') ||
    declared.includes('draft-04')
  )
    return 'draft-07';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** ajv loads on the first tool that declares an output schema, once per dialect. */
function loadAjv(dialect: Dialect): Promise<AjvInstance> {
  let found = validators.get(dialect);
  if (!found) {
    const module =
      dialect === '2020-12'
        ? import('ajv/dist/2020.js')
        : dialect === '2019-09'
          ? import('ajv/dist/2019.js')
          : import('ajv');
    found = module.then((m) => {
      const Ajv = ((m as { default?: unknown }).default ?? m) as new (
        options: object,
      ) => AjvInstance;
      return new Ajv({ strict: false, allErrors: false, validateFormats: false });
    });
    validators.set(dialect, found);
  }
  return found;
}

/** Output schemas of the tools last listed, compiled on first use. */
export class OutputSchemas {
  private readonly schemas = new Map<string, object>();
  private readonly compiled = new Map<string, Promise<Validate>>();

  /** Replaces what is known with the tools of a fresh `tools/list`. */
  remember(tools: ReadonlyArray<{ name: string; outputSchema?: object }>): void {
    this.schemas.clear();
    this.compiled.clear();
    for (const tool of tools) if (tool.outputSchema) this.schemas.set(tool.name, tool.outputSchema);
  }

  has(tool: string): boolean {
    return this.schemas.has(tool);
  }

  /** Resolves with the result when it conforms; rejects with `OutputSchemaError` otherwise. */
  async check(label: string, tool: string, result: CallToolResult): Promise<CallToolResult> {
    const schema = this.schemas.get(tool);
    if (!schema || result.isError) return result;
    if (result.structuredContent === undefined) {
      throw new OutputSchemaError(
        label,
        tool,
        'no structuredContent although it declares an outputSchema',
      );
    }
    // Ajv compiles and validates by recursion: too deep a schema or value is a typed error.
    assertJsonDepth(schema, DEFAULT_MAX_JSON_DEPTH, `${label}: the outputSchema of tool "${tool}"`);
    assertJsonDepth(
      result.structuredContent,
      DEFAULT_MAX_JSON_DEPTH,
      `${label}: the structuredContent of tool "${tool}"`,
    );
    let validate = this.compiled.get(tool);
    if (!validate) {
      validate = loadAjv(dialectOf(schema)).then((a) => a.compile(schema));
      this.compiled.set(tool, validate);
    }
    let fn: Validate;
    try {
      fn = await validate;
    } catch (error) {
      throw new OutputSchemaError(
        label,
        tool,
        `an outputSchema that cannot be compiled: ${(error as Error).message}`,
      );
    }
    if (fn(result.structuredContent)) return result;
    const first = fn.errors?.[0];
    const where = first?.instancePath ? `${first.instancePath} ` : '';
    throw new OutputSchemaError(
      label,
      tool,
      `structuredContent that does not match its outputSchema: ${where}${first?.message ?? 'is invalid'}`,
    );
  }
}
