import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CheckedMessage } from '../support/schema-check.js';

/**
 * Checks what a server sent for the tasks extension against the extension's own JSON
 * Schema (tests/fixtures/ext-tasks-schema, see its SOURCE.md): task handles, `tasks/get`,
 * `tasks/update`, `tasks/cancel` results and `notifications/tasks`.
 */
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/ext-tasks-schema/schema.json', import.meta.url), 'utf8'),
);
const Ajv2020 = require('ajv/dist/2020').default;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
ajv.addSchema(schema, 'ext-tasks');
const validators = new Map<string, ((data: unknown) => boolean) & { errors?: unknown }>();
function validator(def: string) {
  let v = validators.get(def);
  if (!v) {
    v = ajv.compile({ $ref: `ext-tasks#/$defs/${def}` });
    validators.set(def, v!);
  }
  return v!;
}

const RESULT_OF: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};

export interface ExtensionCheck {
  /** How many messages were checked, by definition. */
  checked: Record<string, number>;
  problems: string[];
}

/** Checks every extension message among what a `SchemaCheckedTransport('received')` recorded. */
export function checkExtensionMessages(received: readonly CheckedMessage[]): ExtensionCheck {
  const checked: Record<string, number> = {};
  const problems: string[] = [];
  for (const { message, request } of received) {
    let def: string | undefined;
    let value: unknown;
    if ('method' in message) {
      if (message.method === 'notifications/tasks') {
        def = 'TaskStatusNotification';
        value = message;
      }
    } else if ('result' in message) {
      const result = message.result as { resultType?: unknown };
      if (request === 'tools/call' && result.resultType === 'task') def = 'CreateTaskResult';
      else def = RESULT_OF[request ?? ''];
      value = message.result;
    }
    if (!def) continue;
    checked[def] = (checked[def] ?? 0) + 1;
    const v = validator(def);
    if (!v(value)) problems.push(`${def}: ${JSON.stringify(v.errors)} in ${JSON.stringify(value)}`);
  }
  return { checked, problems };
}
