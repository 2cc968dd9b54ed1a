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
 * Checks the messages on a client's transport against the official JSON Schema
 * (`schema.json`) of the protocol revision they travel under: a transport wrapper for
 * end-to-end tests. It checks one direction, given when it is made: `'sent'` (what the
 * client sends, the default) or `'received'` (what the server sends). The revision of a
 * message is the one in its `_meta` (2026-07-28), else the one of the request it answers,
 * else the one its `initialize` requested, else the one in force on the transport. A
 * result is checked as the result type of the request it answers; a request or a
 * notification by its method.
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

/** The result type of each request, of both sides (their method names are distinct). */
const RESULT_OF: Record<string, string> = {
  // What the client answers to the server's requests.
  'sampling/createMessage': 'CreateMessageResult',
  'elicitation/create': 'ElicitResult',
  'roots/list': 'ListRootsResult',
  ping: 'EmptyResult',
  // What the server answers to the client's requests.
  initialize: 'InitializeResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

/** Which side's messages a `SchemaCheckedTransport` checks. */
export type CheckedDirection = 'sent' | 'received';

export interface CheckedMessage {
  message: JsonRpcMessage;
  /** The revision it is checked against; undefined when none was known. */
  version: string | undefined;
  /** For a response: the method of the request it answers. */
  request?: string | undefined;
}

export class SchemaCheckedTransport implements McpTransport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  /** Every message the client sent, with its revision. */
  readonly sent: CheckedMessage[] = [];
  /** Every message the server sent, with its revision. */
  readonly received: CheckedMessage[] = [];
  /** The version the client told the transport. */
  private version: string | undefined;
  /** The version `initialize` asked for, then the one its result chose. */
  private handshake: string | undefined;
  /** Requests in either direction, by id: their method and revision. */
  private readonly outgoing = new Map<JsonRpcId, { method: string; version: string | undefined }>();
  private readonly incoming = new Map<JsonRpcId, { method: string; version: string | undefined }>();

  constructor(
    readonly inner: McpTransport,
    readonly direction: CheckedDirection = 'sent',
  ) {
    inner.onmessage = (message, extra) => this.receive(message, extra);
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

  private current(): string | undefined {
    return this.version ?? this.handshake;
  }

  /** The revision a message travels under, and for a response the request it answers. */
  private classify(
    message: JsonRpcMessage,
    requests: Map<JsonRpcId, { method: string; version: string | undefined }>,
  ): CheckedMessage {
    if (!('method' in message)) {
      const answered = message.id === null ? undefined : requests.get(message.id);
      return {
        message,
        version: answered?.version ?? this.current(),
        request: answered?.method,
      };
    }
    const params = (message as { params?: Record<string, any> }).params;
    let version = params?._meta?.['io.modelcontextprotocol/protocolVersion'] as string | undefined;
    if (message.method === 'initialize') {
      version = params?.protocolVersion;
      this.handshake = version;
    }
    return { message, version: version ?? this.current() };
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    const checked = this.classify(message, this.incoming);
    this.sent.push(checked);
    if ('method' in message && 'id' in message)
      this.outgoing.set(message.id, { method: message.method, version: checked.version });
    return this.inner.send(message, options);
  }

  private receive(message: JsonRpcMessage, extra?: MessageExtra): void {
    const checked = this.classify(message, this.outgoing);
    this.received.push(checked);
    if ('method' in message && 'id' in message)
      this.incoming.set(message.id, { method: message.method, version: checked.version });
    if (checked.request === 'initialize' && 'result' in message)
      this.handshake = (message.result as { protocolVersion?: string }).protocolVersion;
    this.onmessage?.(message, extra);
  }

  /** Every way a message of the checked direction breaks the schema of its revision; [] when none. */
  problems(): string[] {
    const out: string[] = [];
    const records = this.direction === 'sent' ? this.sent : this.received;
    for (const { message, version, request } of records) {
      const what =
        'method' in message ? message.method : `response to ${request ?? String(message.id)}`;
      if (!version) {
        out.push(`${what}: ${this.direction} under no known protocol version`);
        continue;
      }
      const loaded = load(version);
      let def: string | undefined;
      let value: unknown = message;
      if ('method' in message) {
        def = loaded.byMethod.get(message.method);
        if (!def) {
          out.push(`${what}: revision ${version} has no such method`);
          continue;
        }
      } else if ('result' in message) {
        const result = message.result as { resultType?: string };
        def =
          result.resultType === 'input_required'
            ? 'InputRequiredResult'
            : (RESULT_OF[request ?? ''] ?? 'Result');
        if (!loaded.defs.has(def)) def = 'Result';
        value = message.result;
      } else {
        def = loaded.defs.has('JSONRPCError') ? 'JSONRPCError' : 'JSONRPCErrorResponse';
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
