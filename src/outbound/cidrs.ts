import ipaddr from 'ipaddr.js';

/** A network outbound calls may reach although it is private (`OUTBOUND_ALLOW_CIDRS`): address and prefix length. */
export type AllowedCidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * `OUTBOUND_ALLOW_CIDRS`: CIDRs separated by commas (`10.20.0.0/16,fd00:1::/64`), read with
 * ipaddr.js. Answers the networks, or the entries that are not CIDRs.
 */
export function parseCidrList(raw: string | undefined): { cidrs: AllowedCidr[]; invalid: string[] } {
  const cidrs: AllowedCidr[] = [];
  const invalid: string[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim())) {
    if (!entry) continue;
    try {
      cidrs.push(ipaddr.parseCIDR(entry));
    } catch {
      invalid.push(entry);
    }
  }
  return { cidrs, invalid };
}

/**
 * Whether `address` is in one of `cidrs`. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as
 * the IPv4 address it is; other IPv6 forms that embed an IPv4 address match IPv6 networks only.
 */
export function inAllowedCidrs(address: string, cidrs: readonly AllowedCidr[] | undefined): boolean {
  if (!cidrs?.length || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return cidrs.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
}
