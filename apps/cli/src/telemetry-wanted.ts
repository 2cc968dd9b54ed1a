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
