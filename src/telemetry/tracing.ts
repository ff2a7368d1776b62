import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logging/logger';

/**
 * OpenTelemetry tracing (docs/operations.md "Traces"): on when OTEL_EXPORTER_OTLP_ENDPOINT is set,
 * spans then leave over OTLP/HTTP to `<endpoint>/v1/traces`. Off, every span is OpenTelemetry's no-op
 * and nothing is exported. One provider per process: the API and the worker of `npm start` share it.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Where finished spans go (the worker hands it the workflow spans too). */
  readonly processor?: SpanProcessor;
  readonly resource?: Resource;
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const DISABLED: Tracing = {
  enabled: false,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

let processTracing: Tracing | undefined;

export function startTracing(opts: { endpoint?: string; serviceName: string; logger: Logger }): Tracing {
  if (processTracing) return processTracing;
  if (!opts.endpoint) return DISABLED;
  const resource = new Resource({ [ATTR_SERVICE_NAME]: opts.serviceName });
  const exporter = new OTLPTraceExporter({ url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register(); // AsyncLocalStorage context and W3C trace-context propagation
  opts.logger.info({ endpoint: opts.endpoint }, 'tracing: exporting spans over OTLP');
  const tracing: Tracing = {
    enabled: true,
    processor,
    resource,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      processTracing = undefined;
      await provider.shutdown();
    },
  };
  processTracing = tracing;
  return tracing;
}

export const tracer = () => trace.getTracer('voice-platform');

/**
 * Runs `fn` in a child span of the active one (a no-op span when tracing is off); the span records
 * the error and ends when `fn` settles.
 */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean | undefined>,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes (ids: account, session, workflow, delivery) on the active span, if any. */
export function annotateSpan(attributes: Record<string, string | number | boolean | undefined>): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) span.setAttribute(key, value);
}

/**
 * A client span around one outbound HTTP call (until its answer's head arrives), named by method,
 * with the host and the status: never the URL's path or query, which can carry secrets.
 */
export function inClientSpan<T>(
  method: string,
  url: string,
  fn: () => Promise<T>,
  statusOf: (answer: T) => number = (answer) => (answer as { status: number }).status,
): Promise<T> {
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    // an invalid URL is refused by the call itself
  }
  const attributes = { 'http.request.method': method, 'server.address': host };
  return inSpan(
    `HTTP ${method}`,
    attributes,
    async (span) => {
      const answer = await fn();
      span.setAttribute('http.response.status_code', statusOf(answer));
      return answer;
    },
    SpanKind.CLIENT,
  );
}
