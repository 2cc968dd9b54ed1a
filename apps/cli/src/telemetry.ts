import { registerMcpInstrumentation } from '@mcpkit/otel';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OtlpProtocol } from './telemetry-wanted.js';

/** How long the exit waits for the last spans and metrics to leave. */
const FLUSH_MS = 5000;

const off = (env: string | undefined) => env?.split(',').some((e) => e.trim() === 'none') === true;

/**
 * The OpenTelemetry SDK with the OTLP/HTTP exporters in the encoding `protocols` says
 * (protobuf or JSON; their endpoint, headers, timeout and so on from the standard
 * `OTEL_EXPORTER_OTLP_*` variables), a service name from
 * `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` (`mcpkit` by default), W3C trace
 * context and baggage, and mcpkit's MCP hooks on every client and server the CLI creates.
 * Returns the flush that the exit and the signals wait for.
 */
export function startTelemetry(
  env: NodeJS.ProcessEnv,
  protocols: { traces: OtlpProtocol; metrics: OtlpProtocol },
): () => Promise<void> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'mcpkit' }))
    .merge(detectResources({ detectors: [envDetector] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  const tracerProvider = off(env.OTEL_TRACES_EXPORTER)
    ? undefined
    : new BasicTracerProvider({
        resource,
        spanProcessors: [
          new BatchSpanProcessor(
            protocols.traces === 'http/json'
              ? new JsonTraceExporter()
              : new ProtobufTraceExporter(),
          ),
        ],
      });
  if (tracerProvider) trace.setGlobalTracerProvider(tracerProvider);
  const meterProvider = off(env.OTEL_METRICS_EXPORTER)
    ? undefined
    : new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter:
              protocols.metrics === 'http/json'
                ? new JsonMetricExporter()
                : new ProtobufMetricExporter(),
          }),
        ],
      });
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);
  registerMcpInstrumentation();
  let flushing: Promise<void> | undefined;
  return () => {
    flushing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FLUSH_MS);
        timer.unref();
      });
      const done = Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      await Promise.race([done, deadline]);
      clearTimeout(timer);
    })();
    return flushing;
  };
}
