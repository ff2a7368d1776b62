import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { inClientSpan } from '../telemetry/tracing';
import { type AnswerLimits, answerTooLarge, OutboundError, readCapped } from './answer-limits';
import { type AllowedCidr, inAllowedCidrs } from './cidrs';

export { OutboundError } from './answer-limits';

/**
 * Outbound HTTP for everything the platform calls on a developer's behalf (webhook deliveries, tool
 * calls): an SSRF guard on the address actually connected to, a hard deadline, no redirects, and a
 * cap on the answer (answer-limits.ts): past it the call fails, never answering a truncated body.
 */

export class BlockedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedDestinationError';
  }
}

/**
 * The IPv4 addresses an IPv6 address carries when it is one of the IPv4-embedding forms: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, which includes :: and
 * ::1), NAT64 (64:ff9b::/96, and the local-use 64:ff9b:1::/48 at each RFC 6052 prefix length),
 * 6to4 (2002::/16) and Teredo (2001::/32: its server and its obfuscated client address). Undefined
 * for any other address.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const b = address.toByteArray();
  const v4 = (...bytes: number[]) => new ipaddr.IPv4(bytes);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last32 = () => [v4(b[12], b[13], b[14], b[15])];
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return last32(); // mapped
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return last32(); // translated
  if (zero(0, 12)) return last32(); // compatible
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) return last32(); // NAT64 well-known prefix
    if (b[4] === 0x00 && b[5] === 0x01) {
      // NAT64 local-use prefix: the prefix length is the network's choice, so every position counts
      return [
        v4(b[6], b[7], b[9], b[10]), // /48
        v4(b[7], b[9], b[10], b[11]), // /56
        v4(b[9], b[10], b[11], b[12]), // /64
        v4(b[12], b[13], b[14], b[15]), // /96
      ];
    }
  }
  if (b[0] === 0x20 && b[1] === 0x02) return [v4(b[2], b[3], b[4], b[5])]; // 6to4
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) {
    // Teredo: server at bits 32-63, client (bit-inverted) at bits 96-127
    return [v4(b[4], b[5], b[6], b[7]), v4(b[12] ^ 0xff, b[13] ^ 0xff, b[14] ^ 0xff, b[15] ^ 0xff)];
  }
  return undefined;
}

/**
 * True for every address that is not public unicast: private, loopback, link-local (cloud metadata
 * at 169.254.169.254), unique-local, carrier-grade NAT, multicast, unspecified, reserved. The
 * classification is ipaddr.js's `range()`; an IPv6 address embedding an IPv4 address (see
 * `embeddedIPv4`) is judged by the IPv4 address it embeds (by each, when it carries several).
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded) return embedded.some((v4) => v4.range() !== 'unicast');
  }
  return parsed.range() !== 'unicast';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

export interface OutboundPolicy {
  /** Allow private, loopback, link-local and metadata addresses (development and tests only). */
  allowPrivate: boolean;
  /** Allow plain `http:` URLs (development and tests only). */
  allowHttp: boolean;
  /** Private networks reachable even when `allowPrivate` is false (`OUTBOUND_ALLOW_CIDRS`). */
  allowCidrs?: readonly AllowedCidr[];
}

/** Whether `policy` refuses a connection to `address`: a blocked address outside the allowed networks. */
export function isRefusedAddress(address: string, policy: OutboundPolicy): boolean {
  return !policy.allowPrivate && isBlockedAddress(address) && !inAllowedCidrs(address, policy.allowCidrs);
}

/**
 * A `lookup` for http.request and undici that resolves the host and refuses it when `policy` refuses
 * any resolved address, so the check applies to the address the socket connects to, at every
 * connection (DNS can change between attempts). Undefined when the policy allows every address.
 */
export function guardedLookup(policy: OutboundPolicy): net.LookupFunction | undefined {
  if (policy.allowPrivate) return undefined;
  const lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((a) => isRefusedAddress(a.address, policy));
      if (refused) {
        const message = `${hostname} resolves to a private or reserved address (${refused.address})`;
        return callback(new BlockedDestinationError(message), '');
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
  return lookup as unknown as net.LookupFunction;
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
  if (net.isIP(host) && isRefusedAddress(host, policy))
    return 'must not point to a private or reserved address';
  // private names are refused up front, unless private networks are listed (the lookup then judges
  // the addresses such a name resolves to)
  const privateName = host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal');
  if (privateName && !policy.allowPrivate && !policy.allowCidrs?.length) {
    return 'must not point to a private or reserved address';
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
  /** The reader's limits (answer-limits.ts): the deadline covers the whole exchange. */
  limits: AnswerLimits;
  policy: OutboundPolicy;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole answer: one over `limits.maxBytes` is an OutboundError 'too_large' instead. */
  body: string;
  latencyMs: number;
}

/**
 * One HTTP request with the guard, the deadline and the answer cap; redirects are returned, never
 * followed. Failures reject with OutboundError: 'blocked', 'invalid_url', 'timeout', 'connection',
 * or 'too_large' (the answer passed the cap: the connection was destroyed there).
 */
export function sendOutbound(req: OutboundRequest): Promise<OutboundResponse> {
  return inClientSpan(req.method, req.url, () => sendOnce(req));
}

function sendOnce(req: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve, reject) => {
    const problem = urlProblem(req.url, req.policy);
    if (problem) {
      const kind = problem.includes('private') ? 'blocked' : 'invalid_url';
      return reject(new OutboundError(`URL ${problem}`, kind, 0, false));
    }
    const url = new URL(req.url);
    const transport = url.protocol === 'https:' ? https : http;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const fail = (error: OutboundError) => settle(() => reject(error));
    const request = transport.request(url, {
      method: req.method,
      headers: req.headers,
      agent: agents[url.protocol as 'http:' | 'https:'],
      lookup: guardedLookup(req.policy),
    });
    // whether the whole request was handed to the connection: until then the other side cannot act on it
    let sent = false;
    request.on('finish', () => {
      sent = true;
    });
    const timer = setTimeout(() => {
      request.destroy();
      fail(new OutboundError(`No response within ${req.limits.timeoutMs} ms`, 'timeout', elapsed(), sent));
    }, req.limits.timeoutMs);
    request.on('error', (error) => {
      const blocked = error instanceof BlockedDestinationError;
      const kind = blocked ? 'blocked' : 'connection';
      fail(new OutboundError(error.message || String(error), kind, elapsed(), sent && !blocked));
    });
    request.on('response', (response) => {
      readCapped(response, req.limits.maxBytes).then(
        (body) =>
          settle(() =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: body.toString('utf8'),
              latencyMs: elapsed(),
            }),
          ),
        (error) => {
          request.destroy();
          const tooLarge = error instanceof OutboundError && error.kind === 'too_large';
          fail(
            tooLarge
              ? answerTooLarge(req.limits.maxBytes, elapsed())
              : new OutboundError(`The answer broke off: ${error.message}`, 'connection', elapsed()),
          );
        },
      );
    });
    request.end(req.body);
  });
}
