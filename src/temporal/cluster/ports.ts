import net from 'node:net';
import { TEMPORAL_SERVICES, type TemporalServiceName } from './topology';

/**
 * The highest port the cluster uses: Linux hands out ephemeral ports (outgoing connections, port 0)
 * from 32768, so a port at or below this never collides with one of those.
 */
export const MAX_CLUSTER_PORT = 32767;

export interface TemporalServicePorts {
  grpc: number;
  membership: number;
  /** Prometheus metrics. */
  metrics: number;
  /** The frontend's HTTP API only. */
  http?: number;
}

export type TemporalPorts = Record<TemporalServiceName, TemporalServicePorts>;

/** Temporal's usual layout, as offsets from the frontend's gRPC port (7233, 7234, …, 6933, …). */
const LAYOUT: Record<TemporalServiceName, { grpc: number; membership: number; metrics: number }> = {
  frontend: { grpc: 0, membership: -300, metrics: 20 },
  history: { grpc: 1, membership: -299, metrics: 21 },
  matching: { grpc: 2, membership: -298, metrics: 22 },
  worker: { grpc: 6, membership: -294, metrics: 26 },
};
const FRONTEND_HTTP_OFFSET = 10;

/** Whether `port` can be bound on `ip` now (bound and released at once). */
export function isPortFree(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: ip, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Ports for `preferred`, in order: each preferred port when it is free and not already chosen, else
 * the first free one from `fallbackFrom` up (never above MAX_CLUSTER_PORT). `taken` are left alone.
 */
export async function choosePorts(opts: {
  ip: string;
  preferred: readonly number[];
  fallbackFrom: number;
  taken?: ReadonlySet<number>;
}): Promise<number[]> {
  const chosen = new Set<number>(opts.taken ?? []);
  const result: number[] = [];
  let next = opts.fallbackFrom;
  for (const wanted of opts.preferred) {
    let port = wanted;
    if (!inRange(port) || chosen.has(port) || !(await isPortFree(opts.ip, port))) {
      while (next <= MAX_CLUSTER_PORT && (chosen.has(next) || !(await isPortFree(opts.ip, next)))) next++;
      if (next > MAX_CLUSTER_PORT)
        throw new Error(`no free port on ${opts.ip} between ${opts.fallbackFrom} and ${MAX_CLUSTER_PORT}`);
      port = next;
    }
    chosen.add(port);
    result.push(port);
  }
  return result;
}

function inRange(port: number): boolean {
  return Number.isInteger(port) && port >= 1024 && port <= MAX_CLUSTER_PORT;
}

/**
 * The four services' ports: Temporal's usual layout from `base` (frontend 7233, history 7234,
 * matching 7235, worker 7239, membership 6933…, frontend HTTP 7243, metrics 7253…) where free,
 * other free ports from `base + 100` where not.
 */
export async function chooseTemporalPorts(opts: { ip: string; base: number }): Promise<TemporalPorts> {
  const preferred = TEMPORAL_SERVICES.flatMap((service) => {
    const offsets = LAYOUT[service];
    return [offsets.grpc, offsets.membership, offsets.metrics].map((offset) => opts.base + offset);
  });
  preferred.push(opts.base + FRONTEND_HTTP_OFFSET);
  const ports = await choosePorts({ ip: opts.ip, preferred, fallbackFrom: opts.base + 100 });
  const entries = TEMPORAL_SERVICES.map((service, i) => {
    const [grpc, membership, metrics] = ports.slice(i * 3, i * 3 + 3) as [number, number, number];
    const http = service === 'frontend' ? ports[ports.length - 1] : undefined;
    return [service, { grpc, membership, metrics, ...(http ? { http } : {}) }] as const;
  });
  return Object.fromEntries(entries) as TemporalPorts;
}

/** Every port in `ports`, for checks (distinct, in range). */
export function allTemporalPorts(ports: TemporalPorts): number[] {
  return Object.values(ports).flatMap((p) => [p.grpc, p.membership, p.metrics, ...(p.http ? [p.http] : [])]);
}
