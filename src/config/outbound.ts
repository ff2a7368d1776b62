import { z } from 'zod';
import { type AllowedCidr, parseCidrList } from '../outbound/cidrs';

/**
 * The outbound guard's settings (docs/configuration.md "Outbound calls"): development reaches
 * private addresses and plain `http:` by default, and says so at start; production reaches only
 * public `https:` targets, plus the private networks OUTBOUND_ALLOW_CIDRS lists, and refuses
 * OUTBOUND_ALLOW_PRIVATE=true.
 */

const TRUE_WORDS = ['true', '1', 'yes', 'on'];

const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => TRUE_WORDS.includes(v));

const cidrListFromEnv = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const { cidrs, invalid } = parseCidrList(raw);
    for (const entry of invalid) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not a CIDR (e.g. 10.20.0.0/16 or fd00::/8)` });
    }
    return cidrs;
  });

/** The variables, for the environment schema. */
export const outboundEnv = {
  OUTBOUND_ALLOW_PRIVATE: boolFromEnv.optional(),
  OUTBOUND_ALLOW_HTTP: boolFromEnv.optional(),
  OUTBOUND_ALLOW_CIDRS: cidrListFromEnv,
};

export interface OutboundConfig {
  /** Private, loopback, link-local and metadata addresses are reachable. */
  allowPrivate: boolean;
  /** Plain `http:` URLs are allowed. */
  allowHttp: boolean;
  /** Private networks reachable although `allowPrivate` is false. */
  allowCidrs: AllowedCidr[];
}

/** Production refuses to open the whole private address space: it names the networks instead. */
export function outboundProblems(source: NodeJS.ProcessEnv): string[] {
  if (source.NODE_ENV !== 'production' || !TRUE_WORDS.includes(source.OUTBOUND_ALLOW_PRIVATE ?? ''))
    return [];
  return [
    'OUTBOUND_ALLOW_PRIVATE: cannot be true in production; list the private networks outbound calls may reach in OUTBOUND_ALLOW_CIDRS (e.g. 10.20.0.0/16)',
  ];
}

export function outboundConfig(e: {
  NODE_ENV: string;
  OUTBOUND_ALLOW_PRIVATE?: boolean;
  OUTBOUND_ALLOW_HTTP?: boolean;
  OUTBOUND_ALLOW_CIDRS: AllowedCidr[];
}): OutboundConfig {
  return {
    allowPrivate: e.OUTBOUND_ALLOW_PRIVATE ?? e.NODE_ENV !== 'production',
    allowHttp: e.OUTBOUND_ALLOW_HTTP ?? e.NODE_ENV !== 'production',
    allowCidrs: e.OUTBOUND_ALLOW_CIDRS,
  };
}

/** The one-line warning a process logs at start while outbound calls may reach private or plain-HTTP targets. */
export function outboundNotice(outbound: OutboundConfig): string | undefined {
  const allowed = [
    outbound.allowPrivate ? 'private, loopback and metadata addresses (OUTBOUND_ALLOW_PRIVATE)' : undefined,
    outbound.allowHttp ? 'plain-HTTP URLs (OUTBOUND_ALLOW_HTTP)' : undefined,
  ].filter(Boolean);
  if (allowed.length === 0) return undefined;
  return `outbound calls (webhooks, tools, MCP servers, OAuth) may reach ${allowed.join(' and ')}: development defaults, never for production`;
}
