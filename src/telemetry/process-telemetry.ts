import type { Config } from '../config/env';
import type { Logger } from '../logging/logger';
import { serveMetrics } from './metrics-server';
import { startTracing, type Tracing } from './tracing';

export interface ProcessTelemetry {
  tracing: Tracing;
  /** The port metrics are served on, when METRICS_PORT is set (0 picks a free one). */
  metricsPort?: number;
  close(): Promise<void>;
}

/** A process's telemetry, as configured: tracing (OTLP) and the metrics port. */
export async function startProcessTelemetry(
  config: Config['telemetry'],
  logger: Logger,
): Promise<ProcessTelemetry> {
  const tracing = startTracing({ endpoint: config.otlpEndpoint, serviceName: config.serviceName, logger });
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : await serveMetrics({ host: config.metricsHost, port: config.metricsPort, logger });
  return {
    tracing,
    metricsPort: metrics?.port,
    close: async () => {
      await metrics?.close();
      await tracing.shutdown().catch(() => undefined);
    },
  };
}
