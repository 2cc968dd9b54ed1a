/**
 * Is OpenTelemetry asked for? The standard variables: an OTLP endpoint, or an `otlp`
 * traces or metrics exporter; `OTEL_SDK_DISABLED=true` wins. Reads only the environment,
 * so the CLI asks it before it loads anything.
 */
export function telemetryWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
      env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ||
      env.OTEL_TRACES_EXPORTER?.split(',').some((e) => e.trim() === 'otlp') ||
      env.OTEL_METRICS_EXPORTER?.split(',').some((e) => e.trim() === 'otlp'),
  );
}

/** The OTLP encodings the CLI exports in: both over HTTP. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * The OTLP protocol of each signal, from `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` /
 * `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf` (the OpenTelemetry specification's default). `grpc` and anything else
 * come back as a refusal naming the variable that asked for it.
 */
export function otlpProtocols(
  env: NodeJS.ProcessEnv,
): { traces: OtlpProtocol; metrics: OtlpProtocol } | { refused: string } {
  const pick = (
    signal: 'TRACES' | 'METRICS',
  ): { protocol: OtlpProtocol; refused?: undefined } | { refused: string } => {
    const own = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
    const [name, raw] = env[own]?.trim()
      ? [own, env[own]]
      : ['OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL];
    const value = raw?.trim() || 'http/protobuf';
    return value === 'http/protobuf' || value === 'http/json'
      ? { protocol: value as OtlpProtocol }
      : { refused: `${name}=${JSON.stringify(value).slice(0, 80)}` };
  };
  const traces = pick('TRACES');
  const metrics = pick('METRICS');
  if (traces.refused !== undefined) return { refused: traces.refused };
  if (metrics.refused !== undefined) return { refused: metrics.refused };
  return { traces: traces.protocol, metrics: metrics.protocol };
}
