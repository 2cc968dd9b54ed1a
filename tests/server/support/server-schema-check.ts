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
 * Checks every message a *server* sends (what the client's transport receives) against the
 * official JSON Schema of the revision in force: wrap the client's transport with it.
 * A result is checked as the result type of the request it answers; a notification or a
 * server request by its method.
 */
const require = createRequire(import.meta.url);
// The official schema.json of every revision, kept in the repository as test data (see
// tests/fixtures/mcp-schema/SOURCE.md).
const specDir = fileURLToPath(new URL('../../fixtures/mcp-schema/', import.meta.url));

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};
interface Loaded {
  compile(def: string): Validate;
  byMethod: Map<string, string>;
  defs: Set<string>;
}
const cache = new Map<string, Loaded>();

function load(version: string): Loaded {
  const found = cache.get(version);
  if (found) return found;
  const schema = JSON.parse(readFileSync(`${specDir}${version}/schema.json`, 'utf8'));
  const key = schema.$defs ? '$defs' : 'definitions';
  const Ctor = String(schema.$schema).includes('draft-07')
    ? require('ajv').default
    : require('ajv/dist/2020').default;
  const ajv = new Ctor({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema(schema, version);
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(schema[key] as Record<string, any>)) {
    const m = def?.properties?.method?.const;
    if (typeof m === 'string' && !byMethod.has(m)) byMethod.set(m, name);
  }
  const validators = new Map<string, Validate>();
  const loaded: Loaded = {
    byMethod,
    defs: new Set(Object.keys(schema[key])),
    compile(def) {
      let v = validators.get(def);
      if (!v) {
        v = ajv.compile({ $ref: `${version}#/${key}/${def}` }) as Validate;
        validators.set(def, v);
      }
      return v;
    },
  };
  cache.set(version, loaded);
  return loaded;
}

/** The result type of each request a client sends. */
const RESULT_OF: Record<string, string> = {
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

export class ServerSchemaCheck implements McpTransport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  /** Every message received from the server, with the revision it was checked against. */
  readonly received: Array<{
    message: JsonRpcMessage;
    version: string | undefined;
    request?: string;
  }> = [];
  private readonly sent = new Map<JsonRpcId, { method: string; version: string | undefined }>();
  private version: string | undefined;

  constructor(readonly inner: McpTransport) {
    inner.onmessage = (message, extra) => {
      const request =
        'id' in message && !('method' in message) ? this.sent.get(message.id!) : undefined;
      this.received.push({
        message,
        version: request?.version ?? this.version,
        request: request?.method,
      });
      if (!('method' in message) && request?.method === 'initialize' && 'result' in message) {
        this.version = (message.result as { protocolVersion?: string }).protocolVersion;
      }
      this.onmessage?.(message, extra);
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
    if (version) this.version = version;
    this.inner.setProtocolVersion?.(version);
  }
  setMessageHeaders(h: Parameters<NonNullable<McpTransport['setMessageHeaders']>>[0]) {
    this.inner.setMessageHeaders?.(h);
  }
  resetSession() {
    this.inner.resetSession?.();
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message) {
      const params = message.params as Record<string, any> | undefined;
      const version =
        message.method === 'initialize'
          ? params?.protocolVersion
          : (params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? this.version);
      this.sent.set(message.id, { method: message.method, version });
    }
    return this.inner.send(message, options);
  }

  /** Every way a message from the server breaks the schema of its revision; [] when none. */
  problems(): string[] {
    const out: string[] = [];
    for (const { message, version, request } of this.received) {
      const what = 'method' in message ? message.method : `response to ${request ?? '?'}`;
      if (!version) {
        out.push(`${what}: received under no known protocol version`);
        continue;
      }
      const loaded = load(version);
      let def: string | undefined;
      let value: unknown = message;
      if ('method' in message) {
        def = loaded.byMethod.get(message.method);
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
      if (!def) {
        out.push(`${what}: revision ${version} has no such method`);
        continue;
      }
      const validate = loaded.compile(def);
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
