import { neutralize } from './neutralize.js';

/**
 * A tool's parameters as a person reads them, from its input schema (a server's JSON
 * Schema, so anything may be in it: every read is checked, nesting is bounded). The text
 * made here holds server words; the caller neutralizes it for a terminal.
 */

export interface Parameter {
  name: string;
  /** `number`, `string[]`, `"json"|"text"`, `string|null`, `object`, `any`. */
  type: string;
  required: boolean;
  description?: string;
  /** The schema's `default`, as JSON. */
  default?: string;
}

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The properties of an object schema, in the schema's order; required ones marked. */
export function parametersOf(inputSchema: unknown): Parameter[] {
  if (!isSchema(inputSchema) || !isSchema(inputSchema.properties)) return [];
  const required = new Set(
    Array.isArray(inputSchema.required)
      ? inputSchema.required.filter((r): r is string => typeof r === 'string')
      : [],
  );
  return Object.entries(inputSchema.properties).map(([name, property]) => {
    const p = isSchema(property) ? property : {};
    return {
      name,
      type: typeOf(p, 0),
      required: required.has(name),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
      ...(p.default !== undefined
        ? { default: JSON.stringify(p.default) ?? String(p.default) }
        : {}),
    };
  });
}

/** The names a tool's input schema declares (for "no parameter x" and suggestions). */
export function parameterNames(inputSchema: unknown): string[] {
  return isSchema(inputSchema) && isSchema(inputSchema.properties)
    ? Object.keys(inputSchema.properties)
    : [];
}

/** A property's type in a few characters; `any` for what cannot be said briefly. */
export function typeOf(schema: Schema, depth: number): string {
  if (depth > 3) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const) ?? 'any';
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum.map((v) => JSON.stringify(v) ?? 'null').join('|');
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (alternatives)
    return (
      [...new Set(alternatives.map((a) => (isSchema(a) ? typeOf(a, depth + 1) : 'any')))].join(
        '|',
      ) || 'any'
    );
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t): t is string => typeof t === 'string',
  );
  if (types.length === 0) return isSchema(schema.properties) ? 'object' : 'any';
  return types
    .map((t) => {
      if (t !== 'array') return t;
      if (!isSchema(schema.items)) return 'array';
      const item = typeOf(schema.items, depth + 1);
      return item.includes('|') ? `(${item})[]` : `${item}[]`;
    })
    .join('|');
}

/** `get-sum(a: number, b: number)`; an optional parameter is `b?: string`. */
export function signature(name: string, inputSchema: unknown): string {
  const params = parametersOf(inputSchema)
    .map((p) => `${p.name}${p.required ? '' : '?'}: ${p.type}`)
    .join(', ');
  return `${name}(${params})`;
}

/**
 * One line per parameter, as `get`, and `call <server> <tool> --help` show them:
 * `  a: number (required)  First number`, its default after, when it has one.
 */
export function parameterLines(inputSchema: unknown, indent = '  '): string[] {
  const params = parametersOf(inputSchema);
  if (params.length === 0) return [`${indent}(no parameters)`];
  const heads = params.map((p) => `${p.name}: ${p.type}`);
  const width = Math.min(40, Math.max(...heads.map((h) => h.length)));
  return params.map((p, i) => {
    const facts = [
      p.required ? 'required' : 'optional',
      ...(p.default !== undefined ? [`default ${p.default}`] : []),
    ];
    const description = (p.description ?? '').split('\n')[0]!.trim();
    return `${indent}${heads[i]!.padEnd(width)}  (${facts.join(', ')})${description ? `  ${description}` : ''}`;
  });
}

/** `text` cut to `columns` characters with an ellipsis (no cut when `columns` is absent). */
export function fit(text: string, columns: number | undefined): string {
  if (columns === undefined || columns < 8 || [...text].length <= columns) return text;
  return `${[...text].slice(0, columns - 1).join('')}…`;
}

/**
 * The `tools` listing: each tool's signature, its description's first line under it. On a
 * terminal (`columns`) both are cut to its width; into a pipe they are whole.
 */
export function toolLines(
  tools: ReadonlyArray<{ name: string; description?: string; inputSchema?: unknown }>,
  columns: number | undefined,
): string {
  return tools
    .map((t) => {
      const head = fit(`  ${neutralize(signature(t.name, t.inputSchema))}`, columns);
      const about = neutralize((t.description ?? '').split('\n')[0]!.trim());
      return about ? `${head}\n${fit(`      ${about}`, columns)}` : head;
    })
    .join('\n');
}
