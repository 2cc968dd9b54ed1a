import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type {
  JsonRpcId,
  JsonRpcMessage,
  MessageExtra,
  TransportSendOptions,
} from '@mcpkit/jsonrpc';
import type { McpTransport } from '@mcpkit/protocol';

/**
 * Checks every message a client sends against the official JSON Schema (`schema.json`)
 * of the protocol revision it was sent under: a transport wrapper for end-to-end tests.
 * The revision of a message is the one in its `_meta` (2026-07-28), else the one its
 * `initialize` requested, else the one the client told the transport.
 */

const require = createRequire(import.meta.url);
// The official schema.json of every revision, kept in the repository as test data (see
// tests/fixtures/mcp-schema/SOURCE.md); a missing file is a hard failure, never a skip.
const specDir = fileURLToPath(new URL('../fixtures/mcp-schema/', import.meta.url));

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};
type Ajv = {
  addSchema(schema: object, key: string): void;
  compile(schema: object): Validate;
};

interface Loaded {
  ajv: Ajv;
  /** method name → the definition that has it as `const`. */
  byMethod: Map<string, string>;
  defsKey: string;
  defs: Set<string>;
}
const loaded = new Map<string, Loaded>();
const validators = new Map<string, Validate>();

/**
 * One known defect of the official schema.json, corrected before checking: its generator
 * typed numbers as integers (the 2026-07-28 changelog says so for minimum/maximum/
 * default). The spec's TypeScript types an elicitation answer's values as
 * `string | number | boolean | string[]`, and a form may ask for a number such as 3.14;
 * schema.json allows only integers there.
 */
function patchKnownDefects(defs: Record<string, any>): void {
  const values = defs.ElicitResult?.properties?.content?.additionalProperties;
  const widen = (node: any) => {
    if (Array.isArray(node?.type))
      node.type = node.type.map((t: string) => (t === 'integer' ? 'number' : t));
  };
  widen(values);
  for (const branch of values?.anyOf ?? []) widen(branch);
}

function load(version: string): Loaded {
  let found = loaded.get(version);
  if (found) return found;
  const schema = JSON.parse(readFileSync(`${specDir}${version}/schema.json`, 'utf8'));
  const defsKey = schema.$defs ? '$defs' : 'definitions';
  patchKnownDefects(schema[defsKey]);
  const draft07 = String(schema.$schema).includes('draft-07');
  const Ctor = draft07 ? require('ajv').default : require('ajv/dist/2020').default;
  const ajv = new Ctor({ strict: false, allErrors: false, validateFormats: false }) as Ajv;
  ajv.addSchema(schema, version);
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(schema[defsKey] as Record<string, any>)) {
    const m = def?.properties?.method?.const;
    if (typeof m === 'string' && !byMethod.has(m)) byMethod.set(m, name);
  }
  found = { ajv, byMethod, defsKey, defs: new Set(Object.keys(schema[defsKey])) };
  loaded.set(version, found);
  return found;
}

function validator(version: string, def: string): Validate {
  const key = `${version}#${def}`;
  let v = validators.get(key);
  if (!v) {
    const { ajv, defsKey } = load(version);
    v = ajv.compile({ $ref: `${version}#/${defsKey}/${def}` });
    validators.set(key, v);
  }
  return v;
}

/** What the client answers to each kind of server request. */
const RESULT_OF: Record<string, string> = {
  'sampling/createMessage': 'CreateMessageResult',
  'elicitation/create': 'ElicitResult',
  'roots/list': 'ListRootsResult',
  ping: 'EmptyResult',
};

export class SchemaCheckedTransport implements McpTransport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  /** Every message sent, with the revision it was checked against. */
  readonly sent: Array<{ message: JsonRpcMessage; version: string | undefined }> = [];
  private version: string | undefined;
  private requested: string | undefined;
  private readonly incoming = new Map<JsonRpcId, string>();

  constructor(readonly inner: McpTransport) {
    inner.onmessage = (m, extra) => {
      if ('method' in m && 'id' in m) this.incoming.set(m.id, m.method);
      this.onmessage?.(m, extra);
    };
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = (cause) => this.onclose?.(cause);
  }

  get description() {
    return this.inner.description;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  get eraKey() {
    return this.inner.eraKey;
  }
  start() {
    return this.inner.start();
  }
  close() {
    return this.inner.close();
  }
  setProtocolVersion(version: string | undefined) {
    this.version = version;
    this.inner.setProtocolVersion?.(version);
  }
  setMessageHeaders(h: Parameters<NonNullable<McpTransport['setMessageHeaders']>>[0]) {
    this.inner.setMessageHeaders?.(h);
  }
  resetSession() {
    this.inner.resetSession?.();
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    const params = (message as { params?: Record<string, any> }).params;
    let version = params?._meta?.['io.modelcontextprotocol/protocolVersion'] as string | undefined;
    if ('method' in message && message.method === 'initialize') {
      version = params?.protocolVersion;
      this.requested = version;
    }
    this.sent.push({ message, version: version ?? this.version ?? this.requested });
    return this.inner.send(message, options);
  }

  /** Every way a sent message breaks the schema of its revision; [] when none. */
  problems(): string[] {
    const out: string[] = [];
    for (const { message, version } of this.sent) {
      const what = 'method' in message ? message.method : `response to ${String(message.id)}`;
      if (!version) {
        out.push(`${what}: sent under no known protocol version`);
        continue;
      }
      const { byMethod } = load(version);
      let def: string | undefined;
      let value: unknown = message;
      if ('method' in message) {
        def = byMethod.get(message.method);
        if (!def) {
          out.push(`${what}: revision ${version} has no such method`);
          continue;
        }
      } else if ('result' in message) {
        def = RESULT_OF[this.incoming.get(message.id) ?? ''] ?? 'Result';
        value = message.result;
      } else {
        def = load(version).defs.has('JSONRPCError') ? 'JSONRPCError' : 'JSONRPCErrorResponse';
      }
      const validate = validator(version, def);
      if (!validate(value)) {
        const e = validate.errors?.[0];
        out.push(
          `${what} (${version} ${def}): ${e?.instancePath || '/'} ${e?.message ?? 'invalid'}`,
        );
      }
    }
    return out;
  }
}
