import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Outbound HTTP for everything the platform calls on a developer's behalf (webhook deliveries, tool
 * calls): an SSRF guard on the address actually connected to, a hard deadline, no redirects, and a
 * cap on how much of the response is read.
 */

export class BlockedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedDestinationError';
  }
}

/**
 * True for every address that is not public unicast: private, loopback, link-local (cloud metadata
 * at 169.254.169.254), unique-local, carrier-grade NAT, multicast, unspecified, reserved. The
 * classification is ipaddr.js's `range()`; IPv4-mapped IPv6 addresses are judged as IPv4.
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() !== 'unicast';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that resolves the host and refuses it when any resolved address is
 * blocked, so the check applies to the address the socket connects to, at every connection (DNS
 * can change between attempts).
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((a) => isBlockedAddress(a.address));
    if (blocked) {
      return callback(
        new BlockedDestinationError(
          `${hostname} resolves to a private or reserved address (${blocked.address})`,
        ),
        '',
      );
    }
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

export interface OutboundPolicy {
  /** Allow private, loopback, link-local and metadata addresses (development and tests only). */
  allowPrivate: boolean;
  /** Allow plain `http:` URLs (development and tests only). */
  allowHttp: boolean;
}

/** Problems with a URL as an outbound target, before any DNS lookup (for request validation). */
export function urlProblem(raw: string, policy: OutboundPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate) {
    if (net.isIP(host) && isBlockedAddress(host)) return 'must not point to a private or reserved address';
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) {
      return 'must not point to a private or reserved address';
    }
  }
  return undefined;
}

/** `<field>: <problem>` for each URL that is not an acceptable outbound target (null or undefined are skipped). */
export function urlProblems(
  policy: OutboundPolicy,
  urls: Record<string, string | null | undefined>,
): string[] {
  return Object.entries(urls).flatMap(([field, url]) => {
    const problem = url == null ? undefined : urlProblem(url, policy);
    return problem ? [`${field}: ${problem}`] : [];
  });
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
};

export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is discarded (the connection is then closed). */
  maxResponseBytes: number;
  policy: OutboundPolicy;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  truncated: boolean;
  latencyMs: number;
}

/** Classified failures, so callers can record a clear reason. */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly kind: 'blocked' | 'timeout' | 'connection' | 'invalid_url',
    readonly latencyMs: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** One HTTP request with the guard, the deadline and the size cap; redirects are returned, never followed. */
export function sendOutbound(req: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve, reject) => {
    const problem = urlProblem(req.url, req.policy);
    if (problem) {
      const kind = problem.includes('private') ? 'blocked' : 'invalid_url';
      return reject(new OutboundError(`URL ${problem}`, kind, 0));
    }
    const url = new URL(req.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!req.policy.allowPrivate && net.isIP(host) && isBlockedAddress(host)) {
      return reject(new OutboundError(`${host} is a private or reserved address`, 'blocked', 0));
    }
    const transport = url.protocol === 'https:' ? https : http;
    let settled = false;
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const request = transport.request(url, {
      method: req.method,
      headers: req.headers,
      agent: agents[url.protocol as 'http:' | 'https:'],
      lookup: req.policy.allowPrivate ? undefined : (guardedLookup as unknown as net.LookupFunction),
    });
    const timer = setTimeout(() => {
      request.destroy();
      fail(new OutboundError(`No response within ${req.timeoutMs} ms`, 'timeout', elapsed()));
    }, req.timeoutMs);
    request.on('error', (error) => {
      const blocked = error instanceof BlockedDestinationError;
      fail(new OutboundError(error.message || String(error), blocked ? 'blocked' : 'connection', elapsed()));
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      response.on('data', (chunk: Buffer) => {
        if (kept >= req.maxResponseBytes) {
          truncated = true;
          return;
        }
        const room = req.maxResponseBytes - kept;
        if (chunk.length > room) truncated = true;
        chunks.push(chunk.subarray(0, room));
        kept += Math.min(chunk.length, room);
      });
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          latencyMs: elapsed(),
        });
      };
      response.on('end', finish);
      response.on('error', () => finish());
      response.on('aborted', () => finish());
    });
    request.end(req.body);
  });
}
