import { z } from 'zod';

/**
 * Telemetry settings (docs/operations.md "Traces" and "Metrics"): traces go over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT when it is set; Prometheus metrics are served on METRICS_PORT (when
 * set) and at `GET /metrics` with the admin token.
 */
export const telemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional()),
  OTEL_SERVICE_NAME: z.string().min(1).default('voice-platform'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
};

export interface TelemetryConfig {
  otlpEndpoint?: string;
  serviceName: string;
  metricsPort?: number;
  metricsHost: string;
}

type TelemetryEnv = z.output<z.ZodObject<typeof telemetryEnv>>;

export function telemetryConfig(e: TelemetryEnv): TelemetryConfig {
  return {
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: e.OTEL_SERVICE_NAME,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
  };
}
