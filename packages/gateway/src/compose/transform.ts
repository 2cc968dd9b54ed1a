import { RpcError } from '@mcpkit/jsonrpc';
import type { Tool } from '@mcpkit/protocol';
import type { ToolComposition } from './config.js';

/** JSON-RPC "invalid params": a call that names an argument the gateway fixes. */
const INVALID_PARAMS = -32602;

/** A backend tool as a composition serves it: the client's view and the way back. */
export interface TransformedTool {
  /** The tool as the client sees it (still under the backend's own name). */
  tool: Tool;
  /**
   * The client's arguments → the backend's: renamed arguments back to their own names,
   * defaults for missing ones, hidden values set. A client that sends a hidden argument, or
   * a renamed one by its backend name, is refused (-32602).
   */
  toBackend(args: Record<string, unknown> | undefined): Record<string, unknown> | undefined;
}

type Schema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * Applies one tool's composition (description, annotations, argument transforms) to the tool
 * a backend listed. Returns the problems instead when the transforms do not fit the tool
 * (an argument it does not have, a hidden required argument without a value, a new name
 * that another argument already shows): such a tool is not served, since serving it
 * untransformed could drop a value the config fixes.
 */
export function transformTool(
  server: string,
  tool: Tool,
  composition: ToolComposition | undefined,
): TransformedTool | { problems: string[] } {
  const argsConfig = Object.entries(composition?.arguments ?? {});
  const described = {
    ...tool,
    ...(composition?.description !== undefined ? { description: composition.description } : {}),
    ...(composition?.annotations !== undefined
      ? { annotations: { ...tool.annotations, ...composition.annotations } }
      : {}),
  } as Tool;
  if (argsConfig.length === 0) return { tool: described, toBackend: (args) => args };

  const schema = (tool.inputSchema ?? { type: 'object' }) as Schema & Record<string, unknown>;
  const properties = schema.properties ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const problems: string[] = [];
  const where = `tool "${tool.name}" of server "${server}"`;
  const hidden = new Map<string, { has: boolean; value: unknown }>();
  const defaults = new Map<string, unknown>();
  /** Client name → backend name, for every argument shown under another name. */
  const renamedTo = new Map<string, string>();
  const transformed = new Set<string>();
  for (const [arg, t] of argsConfig) {
    if (!Object.hasOwn(properties, arg)) {
      problems.push(`${where} has no argument "${arg}"`);
      continue;
    }
    transformed.add(arg);
    if (t.hide === true) {
      const has = Object.hasOwn(t, 'value');
      if (required.has(arg) && !has)
        problems.push(`${where}: argument "${arg}" is required, so hiding it needs a "value"`);
      hidden.set(arg, { has, value: t.value });
      continue;
    }
    if (Object.hasOwn(t, 'default')) defaults.set(arg, t.default);
    if (t.rename !== undefined && t.rename !== arg) renamedTo.set(t.rename, arg);
  }
  for (const [shown, arg] of renamedTo)
    if (Object.hasOwn(properties, shown) && !transformed.has(shown))
      problems.push(`${where}: argument "${arg}" cannot be shown as "${shown}", its own argument`);
  if (problems.length > 0) return { problems };

  const shownName = new Map([...renamedTo].map(([shown, arg]) => [arg, shown]));
  const nextProperties: Record<string, Record<string, unknown>> = {};
  for (const [arg, prop] of Object.entries(properties)) {
    if (hidden.has(arg)) continue;
    const t = composition?.arguments?.[arg];
    let next = prop;
    if (t?.description !== undefined) next = { ...next, description: t.description };
    if (defaults.has(arg)) next = { ...next, default: defaults.get(arg) };
    Object.defineProperty(nextProperties, shownName.get(arg) ?? arg, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const nextRequired = [...required]
    .filter((arg) => !hidden.has(arg) && !defaults.has(arg))
    .map((arg) => shownName.get(arg) ?? arg);
  const { required: _, ...rest } = schema;
  const inputSchema = {
    ...rest,
    properties: nextProperties,
    ...(nextRequired.length > 0 ? { required: nextRequired } : {}),
  };
  /** Backend names a client may not send as such: hidden ones, and renamed ones' own names. */
  const refused = new Map<string, string>();
  for (const arg of hidden.keys()) refused.set(arg, 'it is fixed by the gateway');
  for (const [shown, arg] of renamedTo)
    if (!renamedTo.has(arg)) refused.set(arg, `it is called "${shown}" here`);
  const toBackend = (args: Record<string, unknown> | undefined) => {
    const out: Record<string, unknown> = {};
    const set = (key: string, value: unknown) =>
      Object.defineProperty(out, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    for (const [key, value] of Object.entries(args ?? {})) {
      const original = renamedTo.get(key);
      if (original !== undefined) set(original, value);
      else if (refused.has(key))
        throw new RpcError(
          INVALID_PARAMS,
          `mcpkit gateway: tool "${tool.name}" of server "${server}" takes no argument "${key}" (${refused.get(key)})`,
        );
      else set(key, value);
    }
    for (const [arg, value] of defaults) if (out[arg] === undefined) set(arg, value);
    for (const [arg, h] of hidden) if (h.has) set(arg, h.value);
    return out;
  };
  return { tool: { ...described, inputSchema } as Tool, toBackend };
}
