import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client, the de facto Node client): one registry per process,
 * scraped at `GET /metrics` (admin token) or on METRICS_PORT (docs/operations.md "Metrics"). The
 * instruments are module-level so any code records without being handed a registry; an area records
 * its own measurement (a delivery's outcome, a turn's latency) and this file knows none of them.
 */
export const registry = new Registry();

/** Latency buckets from 5 ms to 30 s: API requests, voice turns and queue lags all fall inside. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency from arrival to the last byte, by method and route template',
  labelNames: ['method', 'route'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered, pending (failed, retried later), failed (the last attempt failed), gone',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const voiceTurnDuration = new Histogram({
  name: 'voice_turn_duration_seconds',
  help: 'Voice turns: from the caller’s words to the agent’s whole reply, by how it was answered (model, command, refusal, fallback)',
  labelNames: ['route'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** Live voice streams (docs/voice-stream.md "Limits" and "Observing streams"), counted by kind, never by session. */
export const voiceStreamsOpen = new Gauge({
  name: 'voice_streams_open',
  help: 'Live voice streams open on this API process',
  registers: [registry],
});

export const voiceStreamUpgrades = new Counter({
  name: 'voice_stream_upgrades_total',
  help: 'Voice stream upgrades, by outcome: opened, or refused and why (unauthorized, forbidden, not_found, ended, plan_limit, rate_limited, unavailable, error)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const voiceStreamCloses = new Counter({
  name: 'voice_stream_closes_total',
  help: 'Voice streams closed, by reason: ended, disconnected, idle_timeout, busy, client_not_reading, flooding, shutdown, failed',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const voiceStreamFrames = new Counter({
  name: 'voice_stream_frames_total',
  help: 'Voice stream frames, by direction (in, out), kind (text, audio) and outcome (taken, dropped, refused, sent)',
  labelNames: ['direction', 'kind', 'outcome'] as const,
  registers: [registry],
});

export const voiceStreamTurns = new Counter({
  name: 'voice_stream_turns_total',
  help: 'Turns asked for on voice streams, by outcome: taken, rate_limited, busy',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const activityScheduleToStart = new Histogram({
  name: 'temporal_activity_schedule_to_start_seconds',
  help: 'Temporal activity attempts: from scheduled to started on this worker (task queue lag), by activity type',
  labelNames: ['activity'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/**
 * A gauge whose value is read at scrape time (e.g. the outbox's oldest undispatched event). `read`
 * failing (the database is down) leaves the gauge without a sample rather than failing the scrape.
 */
export function gaugeAtScrape(name: string, help: string, read: () => Promise<number>): Gauge {
  const existing = registry.getSingleMetric(name);
  if (existing) registry.removeSingleMetric(name);
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      try {
        this.set(await read());
      } catch {
        this.reset();
      }
    },
  });
}

/** The text exposition format, for a scrape. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
