import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as it came over OTLP/HTTP JSON (ids in hex, as the JSON encoding writes them). */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, unknown>;
}

const MAX_BODY = 16 * 1024 * 1024;

/** A value of OTLP JSON's `AnyValue` as plain JS. */
function anyValue(v: Record<string, unknown> | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  return v;
}

/**
 * An OTLP/HTTP receiver on 127.0.0.1: decodes what the real exporters send to
 * `/v1/traces` (JSON, the encoding of `@opentelemetry/exporter-trace-otlp-http`) and
 * accepts `/v1/metrics`. Refuses protobuf (415) so a change of encoding shows.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const metricPosts: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
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
          const service = anyValue(
            rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value,
          ) as string;
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                    a.key,
                    anyValue(a.value),
                  ]),
                ),
              });
        }
      } else if (req.url === '/v1/metrics') {
        metricPosts.push(body);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricPosts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
