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

/**
 * An OTLP/HTTP receiver on 127.0.0.1: decodes what the real exporters send to
 * `/v1/traces` (JSON, the encoding of `@opentelemetry/exporter-trace-otlp-http`) and
 * accepts `/v1/metrics`. Refuses protobuf (415) so a change of encoding shows.
 */
export async function startOtlpReceiver() {
  /** @type {ReceivedSpan[]} */
  const spans = [];
  /** @type {unknown[]} */
  const metricPosts = [];
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
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
    /** @returns {Promise<void>} */
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
