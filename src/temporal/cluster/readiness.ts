import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';

/**
 * Polls `check` (null when ready, else what is not ready yet) every `intervalMs` until it is ready;
 * fails with the last answer after `timeoutMs`, or at once when `exited` resolves (the process ended).
 */
export async function waitUntil(opts: {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  exited?: Promise<string>;
  check: () => Promise<string | null> | string | null;
}): Promise<void> {
  let ended: string | undefined;
  void opts.exited?.then((reason) => {
    ended = reason;
  });
  const deadline = Date.now() + opts.timeoutMs;
  let notReady = 'no answer';
  for (;;) {
    if (ended !== undefined) throw new Error(`${opts.what}: the process ${ended}`);
    const answer = await opts.check();
    if (answer === null) return;
    notReady = answer;
    if (Date.now() >= deadline) break;
    await sleep(opts.intervalMs ?? 250);
  }
  throw new Error(`${opts.what}: not ready after ${Math.round(opts.timeoutMs / 1000)}s: ${notReady}`);
}

/** The gRPC health service names the Temporal services report (each service's handler.go in the server). */
export const TEMPORAL_HEALTH_SERVICES = {
  frontend: 'temporal.api.workflowservice.v1.WorkflowService',
  history: 'temporal.api.workflowservice.v1.HistoryService',
  matching: 'temporal.api.workflowservice.v1.MatchingService',
} as const;

/** grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING */
const SERVING = 1;

/**
 * null when the gRPC server at `address` reports `service` SERVING (the standard grpc.health.v1
 * check), else why not. History answers SERVING once it owns its shards, frontend once membership
 * is ready.
 */
export async function grpcHealth(address: string, service: string): Promise<string | null> {
  // a fresh lazy connection per attempt, without the SDK's retry interceptor (the caller retries)
  const connection = Connection.lazy({ address, connectTimeout: '2s', interceptors: [] });
  try {
    const { status } = await connection.withDeadline(Date.now() + 2_000, () =>
      connection.healthService.check({ service }),
    );
    return status === SERVING ? null : `${service} reports status ${status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** null when `url` answers 2xx, else its status or the error. */
export async function httpOk(url: string, headers: Record<string, string> = {}): Promise<string | null> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    const body = res.ok ? '' : (await res.text()).slice(0, 300);
    return res.ok ? null : `${url} answered ${res.status} ${body}`;
  } catch (error) {
    return `${url}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
