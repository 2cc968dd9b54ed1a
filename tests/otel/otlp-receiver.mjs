// An OTLP/HTTP receiver for the OpenTelemetry tests and tests/otel/trace-capture.mjs. Plain
// JavaScript (types in JSDoc) so that a script run by `node` alone can use it too.
import { createServer } from 'node:http';

/**
 * One span as it came over OTLP/HTTP JSON (ids in hex, as the JSON encoding writes them).
 * @typedef {object} ReceivedSpan
 * @property {string} service `service.name` of the span's resource
 * @property {string} traceId
 * @property {string} spanId
 * @property {string} parentSpanId `''` for a root
 * @property {string} name
 * @property {number} kind OTLP's SpanKind: 1 INTERNAL, 2 SERVER, 3 CLIENT
 * @property {bigint} startTimeUnixNano
 * @property {bigint} endTimeUnixNano
 * @property {Record<string, unknown>} attributes
 * @property {Array<{ traceId: string, spanId: string }>} links
 */

const MAX_BODY = 16 * 1024 * 1024;

/**
 * A value of OTLP JSON's `AnyValue` as plain JS.
 * @param {Record<string, unknown> | undefined} v
 * @returns {unknown}
 */
function anyValue(v) {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  return v;
}

/**
 * OTLP JSON writes a fixed64 as a decimal string (or a number, from some encoders).
 * @param {unknown} v
 */
const nanos = (v) => (typeof v === 'string' || typeof v === 'number' ? BigInt(v) : 0n);

/**
 * @param {Array<{ key: string, value: Record<string, unknown> }> | undefined} list
 * @returns {Record<string, unknown>}
 */
const attributesOf = (list) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, anyValue(a.value)]));

// --- OTLP protobuf (opentelemetry-proto), read with the wire format's four field kinds ---

/**
 * The fields of one protobuf message: number, wire type, and the raw value (a bigint for a
 * varint, the bytes for the others).
 * @param {Buffer} buf
 * @returns {Array<{ no: number, wt: number, v: bigint | Buffer }>}
 */
function fields(buf) {
  /** @type {Array<{ no: number, wt: number, v: bigint | Buffer }>} */
  const out = [];
  let i = 0;
  const varint = () => {
    let shift = 0n;
    let n = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error('protobuf: truncated varint');
      const b = buf[i++];
      n |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return n;
      shift += 7n;
      if (shift > 70n) throw new Error('protobuf: varint too long');
    }
  };
  const take = (/** @type {number} */ n) => {
    if (i + n > buf.length) throw new Error('protobuf: truncated field');
    const v = buf.subarray(i, i + n);
    i += n;
    return v;
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wt = key & 7;
    if (wt === 0) out.push({ no, wt, v: varint() });
    else if (wt === 1) out.push({ no, wt, v: take(8) });
    else if (wt === 2) out.push({ no, wt, v: take(Number(varint())) });
    else if (wt === 5) out.push({ no, wt, v: take(4) });
    else throw new Error(`protobuf: wire type ${wt}`);
  }
  return out;
}

/** @param {ReturnType<typeof fields>} fs @param {number} no */
const bytesOf = (fs, no) => /** @type {Buffer[]} */ (fs.filter((f) => f.no === no).map((f) => f.v));
/** @param {ReturnType<typeof fields>} fs @param {number} no */
const first = (fs, no) => fs.find((f) => f.no === no)?.v;

/**
 * `AnyValue`: 1 string, 2 bool, 3 int, 4 double (arrays and maps kept as their bytes).
 * @param {Buffer} buf
 */
function pbAnyValue(buf) {
  const f = fields(buf)[0];
  if (!f) return undefined;
  if (f.no === 1) return /** @type {Buffer} */ (f.v).toString('utf8');
  if (f.no === 2) return f.v !== 0n;
  if (f.no === 3) return Number(BigInt.asIntN(64, /** @type {bigint} */ (f.v)));
  if (f.no === 4) return /** @type {Buffer} */ (f.v).readDoubleLE(0);
  return f.v;
}

/** `repeated KeyValue` (1 key, 2 value) as a record. @param {Buffer[]} list */
const pbAttributes = (list) =>
  Object.fromEntries(
    list.map((kv) => {
      const fs = fields(kv);
      const value = first(fs, 2);
      return [
        /** @type {Buffer} */ (first(fs, 1))?.toString('utf8') ?? '',
        value ? pbAnyValue(/** @type {Buffer} */ (value)) : undefined,
      ];
    }),
  );

/** `Resource` (1 attributes) of a `ResourceSpans` / `ResourceMetrics`. @param {ReturnType<typeof fields>} fs */
const pbResource = (fs) => {
  const resource = /** @type {Buffer | undefined} */ (first(fs, 1));
  return resource ? pbAttributes(bytesOf(fields(resource), 1)) : {};
};

const hex = (/** @type {Buffer | undefined} */ b) => (b ? b.toString('hex') : '');

/**
 * The spans of an `ExportTraceServiceRequest`: resource_spans (1) → resource (1),
 * scope_spans (2) → spans (2): trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 * start 7, end 8 (fixed64), attributes 9, links 13 (trace_id 1, span_id 2).
 * @param {Buffer} body
 * @returns {ReceivedSpan[]}
 */
function protobufSpans(body) {
  /** @type {ReceivedSpan[]} */
  const out = [];
  for (const rs of bytesOf(fields(body), 1)) {
    const rsf = fields(rs);
    const service = /** @type {string} */ (pbResource(rsf)['service.name']);
    for (const ss of bytesOf(rsf, 2))
      for (const sp of bytesOf(fields(ss), 2)) {
        const f = fields(sp);
        out.push({
          service,
          traceId: hex(/** @type {Buffer} */ (first(f, 1))),
          spanId: hex(/** @type {Buffer} */ (first(f, 2))),
          parentSpanId: hex(/** @type {Buffer | undefined} */ (first(f, 4))),
          name: /** @type {Buffer} */ (first(f, 5))?.toString('utf8') ?? '',
          kind: Number(first(f, 6) ?? 0n),
          startTimeUnixNano: /** @type {Buffer} */ (first(f, 7))?.readBigUInt64LE(0) ?? 0n,
          endTimeUnixNano: /** @type {Buffer} */ (first(f, 8))?.readBigUInt64LE(0) ?? 0n,
          attributes: pbAttributes(bytesOf(f, 9)),
          links: bytesOf(f, 13).map((l) => {
            const lf = fields(l);
            return {
              traceId: hex(/** @type {Buffer} */ (first(lf, 1))),
              spanId: hex(/** @type {Buffer} */ (first(lf, 2))),
            };
          }),
        });
      }
  }
  return out;
}

/**
 * An `ExportMetricsServiceRequest` in the shape of its JSON encoding, as far as the tests
 * read it: each resource_metrics (1) with its resource's attributes.
 * @param {Buffer} body
 */
function protobufMetrics(body) {
  return {
    resourceMetrics: bytesOf(fields(body), 1).map((rm) => ({
      resource: {
        attributes: Object.entries(pbResource(fields(rm))).map(([key, v]) => ({
          key,
          value: typeof v === 'string' ? { stringValue: v } : { value: v },
        })),
      },
    })),
  };
}

/**
 * An OTLP/HTTP receiver on 127.0.0.1: decodes what the real exporters send to
 * `/v1/traces` and `/v1/metrics` in either encoding, JSON (`application/json`,
 * `@opentelemetry/exporter-*-otlp-http`) or protobuf (`application/x-protobuf`,
 * `@opentelemetry/exporter-*-otlp-proto`); `posts` says which each export used. Any other
 * content type is refused (415) so a change of encoding shows.
 */
export async function startOtlpReceiver() {
  /** @type {ReceivedSpan[]} */
  const spans = [];
  /** @type {unknown[]} */
  const metricPosts = [];
  /** @type {Array<{ path: string | undefined, contentType: string }>} */
  const posts = [];
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const contentType = String(req.headers['content-type']);
      const raw = Buffer.concat(chunks);
      if (contentType.startsWith('application/x-protobuf')) {
        posts.push({ path: req.url, contentType: 'application/x-protobuf' });
        try {
          if (req.url === '/v1/traces') spans.push(...protobufSpans(raw));
          else if (req.url === '/v1/metrics') metricPosts.push(protobufMetrics(raw));
        } catch {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      if (!contentType.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      posts.push({ path: req.url, contentType: 'application/json' });
      const body = JSON.parse(raw.toString('utf8'));
      if (req.url === '/v1/traces') {
        for (const rs of body.resourceSpans ?? []) {
          const service = /** @type {string} */ (
            attributesOf(rs.resource?.attributes)['service.name']
          );
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                startTimeUnixNano: nanos(s.startTimeUnixNano),
                endTimeUnixNano: nanos(s.endTimeUnixNano),
                attributes: attributesOf(s.attributes),
                links: (s.links ?? []).map((/** @type {any} */ l) => ({
                  traceId: l.traceId,
                  spanId: l.spanId,
                })),
              });
        }
      } else if (req.url === '/v1/metrics') {
        metricPosts.push(body);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricPosts,
    posts,
    /** @returns {Promise<void>} */
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
