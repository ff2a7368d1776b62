import http from 'node:http';

/** A span as an OTLP/HTTP JSON export carries it (ids in hex). */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<CollectedSpan, 'attributes' | 'service'> & { attributes?: OtlpAttribute[] })[];
    }[];
  }[];
}

const plainValue = (v: OtlpValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]));

/**
 * An in-process OpenTelemetry collector: a real HTTP server taking OTLP/HTTP JSON exports at
 * /v1/traces (what @opentelemetry/exporter-trace-otlp-http sends), keeping every span.
 */
export async function startOtlpCollector(): Promise<{
  endpoint: string;
  spans: CollectedSpan[];
  close(): Promise<void>;
}> {
  const spans: CollectedSpan[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
    for (const resource of body.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({ ...span, service, attributes: attributesOf(span.attributes) });
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
