import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { httpRequestDuration, httpRequests } from './metrics';
import { tracer } from './tracing';

/**
 * The route template a request matched (`/api/v2/developers/webhooks/:id`, set by the API router,
 * or an app-level route's path), never the raw path, so metric labels stay few; `unmatched` for
 * anything no route took (404s, console files).
 */
function routeOf(req: Request, res: Response): string {
  if (typeof res.locals.route === 'string') return res.locals.route;
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}

/**
 * A server span per request (continuing a caller's W3C `traceparent`), and the request counter and
 * latency histogram, both labelled by route template and recorded when the answer is sent.
 */
export function httpTelemetry(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(
    `${req.method} ${req.path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
    parent,
  );
  res.on('finish', () => {
    const route = routeOf(req, res);
    const status = res.statusCode;
    span.updateName(`${req.method} ${route}`);
    span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    httpRequests.inc({ method: req.method, route, status: String(status) });
    httpRequestDuration.observe({ method: req.method, route }, seconds);
  });
  context.with(trace.setSpan(parent, span), next);
}
