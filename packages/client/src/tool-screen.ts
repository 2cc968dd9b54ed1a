import { isRecord } from '@mcpkit/jsonrpc/internal';
import { fastListToolsResult, type Tool } from '@mcpkit/protocol';
import { loadSchemas } from './result-checks.js';

/** What became of one tool of a server's list that did not fit the protocol schema. */
export interface ToolIssue {
  /** The tool's name, or `#<index>` when it has no usable one. */
  readonly tool: string;
  /** `repaired`: kept, with the change `reason` names; `dropped`: left out of the list. */
  readonly action: 'repaired' | 'dropped';
  readonly reason: string;
}

/**
 * A `tools/list` page: an object with a `tools` array (and a string `nextCursor`, when
 * any). Each tool is checked on its own by `screenTools`, so one bad tool never costs the
 * whole list.
 */
export function toolsPage(value: unknown): { tools: unknown[]; nextCursor?: string } | undefined {
  if (!isRecord(value) || !Array.isArray(value.tools)) return undefined;
  if (value.nextCursor !== undefined && typeof value.nextCursor !== 'string') return undefined;
  if (value._meta !== undefined && !isRecord(value._meta)) return undefined;
  return value as { tools: unknown[]; nextCursor?: string };
}

/**
 * A schema without `type` gets `"type": "object"`. The repair is unambiguous: tool
 * arguments are always a JSON object, and adding the type to a schema that has none never
 * changes which objects it accepts (`{}` or a lone `$schema` accepts every object; a
 * `properties` keyword constrains only objects). A schema whose `type` is anything else
 * is not repaired.
 */
function repairSchema(schema: unknown): Record<string, unknown> | undefined {
  if (!isRecord(schema) || 'type' in schema) return undefined;
  return { type: 'object', ...schema };
}

/** The tool alone through the fast check: true when it is a plain, valid tool. */
const plain = (tool: unknown) => fastListToolsResult({ tools: [tool] }) !== undefined;

/**
 * Each tool of a list checked on its own. A valid tool passes as it came (the same
 * object); one whose `inputSchema` or `outputSchema` lacks `"type": "object"` is repaired
 * (see `repairSchema`) and kept; any other tool that does not fit the schema (no string
 * name, a schema of another type, bad annotations) is dropped. Every repair and drop is
 * an issue for the host to be told about.
 */
export async function screenTools(
  items: readonly unknown[],
): Promise<{ tools: Tool[]; issues: ToolIssue[] }> {
  if (items.every(plain)) return { tools: items as Tool[], issues: [] };
  const { ToolSchema } = await loadSchemas();
  const tools: Tool[] = [];
  const issues: ToolIssue[] = [];
  items.forEach((item, index) => {
    if (plain(item)) {
      tools.push(item as Tool);
      return;
    }
    const name =
      isRecord(item) && typeof item.name === 'string' && item.name !== '' ? item.name : `#${index}`;
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') {
      issues.push({ tool: name, action: 'dropped', reason: 'it has no name' });
      return;
    }
    let candidate: Record<string, unknown> = item;
    const repaired: string[] = [];
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      if (key === 'outputSchema' && candidate[key] === undefined) continue;
      const fixed = repairSchema(candidate[key]);
      if (!fixed) continue;
      candidate = { ...candidate, [key]: fixed };
      repaired.push(key);
    }
    const parsed = ToolSchema.safeParse(candidate);
    if (parsed.success) {
      // The tool as it came, only the repaired schema replaced (zod's copy drops nothing,
      // but keeping the server's own object keeps its bytes).
      tools.push(candidate as Tool);
      if (repaired.length > 0)
        issues.push({
          tool: name,
          action: 'repaired',
          reason: `its ${repaired.join(' and ')} had no "type"; read as "type": "object"`,
        });
      return;
    }
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    issues.push({
      tool: name,
      action: 'dropped',
      reason: `${where}${issue?.message ?? 'it does not match the schema'}`,
    });
  });
  return { tools, issues };
}
