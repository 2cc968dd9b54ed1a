// The SDK set-up the OpenTelemetry rows measure with: AsyncLocalStorage context manager,
// W3C propagator, BasicTracerProvider + BatchSpanProcessor with an exporter that drops
// what it is given (what an OTLP exporter costs on the wire is the exporter's, not ours).
// Loaded only by the modes that register an SDK. Returns the provider (to shut down).
// `contextManager: false` leaves the API's no-op context manager in place: spans are still
// made and propagated (a client span's context goes into `_meta` explicitly), but nothing
// is carried across awaits, so a span cannot parent what its callee starts.
// `sampled: false` gives the provider a sampler that records nothing (AlwaysOffSampler):
// spans are still started and their context still propagated (flags 00), nothing recorded.
// `metrics: true` also registers a MeterProvider as the CLI does (a PeriodicExportingMetricReader
// at its default interval, with an exporter that drops what it is given), so the hooks
// record the operation duration histogram per call too.
export async function registerBatchSdk({
  contextManager = true,
  sampled = true,
  metrics: withMetrics = false,
} = {}) {
  const { context, metrics, propagation, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { AlwaysOffSampler, BasicTracerProvider, BatchSpanProcessor } = await import(
    '@opentelemetry/sdk-trace-base'
  );
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  if (contextManager)
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(dropping)],
    ...(sampled ? {} : { sampler: new AlwaysOffSampler() }),
  });
  trace.setGlobalTracerProvider(provider);
  if (!withMetrics) return provider;
  const { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } = await import(
    '@opentelemetry/sdk-metrics'
  );
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: {
          export: (_metrics, done) => done({ code: 0 }),
          selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
          forceFlush: async () => {},
          shutdown: async () => {},
        },
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    shutdown: () => Promise.all([provider.shutdown(), meterProvider.shutdown()]),
  };
}
