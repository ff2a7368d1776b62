/**
 * robots.txt (RFC 9309), the subset a crawler needs: groups of `User-agent` lines and their `Allow`
 * and `Disallow` rules, with `*` (any characters) and a final `$` (end of the path). The rule with
 * the longest pattern that matches wins; on a tie, `Allow`. Other lines (`Sitemap`, `Crawl-delay`,
 * unknown keys) are ignored. Pure: the file is fetched in robots-fetch.ts.
 */

export interface RobotsRules {
  /** Whether the path and query (`/a/b?x=1`) may be fetched. */
  isAllowed(pathAndQuery: string): boolean;
}

/** No robots.txt (4xx): everything may be fetched. */
export const ALLOW_ALL: RobotsRules = { isAllowed: () => true };
/** robots.txt unreachable (5xx, network failure): nothing may be fetched (RFC 9309 §2.3.1.4). */
export const DISALLOW_ALL: RobotsRules = { isAllowed: (path) => path === '/robots.txt' };

interface RobotsRule {
  allow: boolean;
  /** The pattern as written (percent-escapes upper-cased, other octets escaped): its length ranks it. */
  pattern: string;
}

interface RobotsGroup {
  /** Lower-case product tokens, or `*`. */
  agents: string[];
  rules: RobotsRule[];
}

/** The product token of a User-Agent (`ExampleBot/1.0 (+https://…)` → `examplebot`), lower-case. */
export function productToken(userAgent: string): string {
  return userAgent.trim().split(/[/\s]/)[0].toLowerCase();
}

/**
 * The rules of `text` for `userAgent`: every group naming its product token (case-insensitive),
 * merged; else every `*` group, merged; else none (everything allowed).
 */
export function parseRobotsTxt(text: string, userAgent: string): RobotsRules {
  const groups = parseGroups(text);
  const token = productToken(userAgent);
  let chosen = groups.filter((group) => group.agents.includes(token));
  if (!chosen.length) chosen = groups.filter((group) => group.agents.includes('*'));
  const rules = chosen.flatMap((group) => group.rules);
  return { isAllowed: (path) => path === '/robots.txt' || isAllowedBy(rules, path) };
}

function parseGroups(text: string): RobotsGroup[] {
  const groups: RobotsGroup[] = [];
  let current: RobotsGroup | undefined;
  let readingAgents = false; // a User-agent line after a rule starts a new group
  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !readingAgents) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value === '*' ? '*' : productToken(value));
      readingAgents = true;
    } else if (key === 'allow' || key === 'disallow') {
      readingAgents = false;
      // rules before any User-agent line belong to no group; an empty pattern is no rule
      if (current && value) current.rules.push({ allow: key === 'allow', pattern: normalizePattern(value) });
    }
  }
  return groups;
}

/** The longest matching pattern decides; on a tie, Allow. No matching rule: allowed. */
function isAllowedBy(rules: readonly RobotsRule[], path: string): boolean {
  const target = normalizePattern(path);
  let best: RobotsRule | undefined;
  for (const rule of rules) {
    if (!matchesPattern(rule.pattern, target)) continue;
    const longer = !best || rule.pattern.length > best.pattern.length;
    const tieToAllow = best && rule.pattern.length === best.pattern.length && rule.allow;
    if (longer || tieToAllow) best = rule;
  }
  return best?.allow ?? true;
}

/**
 * A pattern or path in one spelling (RFC 9309 §2.2.2, RFC 3986 §6.2.2): octets outside printable
 * US-ASCII percent-encoded as UTF-8, escapes of unreserved characters decoded and the others in
 * upper case, so `/caf%c3%a9`, `/caf%C3%A9` and `/café` compare equal, as do `/%7euser` and `/~user`.
 */
function normalizePattern(pattern: string): string {
  return pattern
    .replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char))
    .replace(/%[0-9a-fA-F]{2}/g, (percentEscape) => {
      const char = String.fromCharCode(Number.parseInt(percentEscape.slice(1), 16));
      return /^[A-Za-z0-9\-._~]$/.test(char) ? char : percentEscape.toUpperCase();
    });
}

/**
 * Whether `pattern` matches the start of `path` (the whole path when it ends with `$`). `*` matches
 * any characters; matched without regular expressions, in O(pattern × path) at worst, so a hostile
 * robots.txt cannot make matching slow.
 */
export function matchesPattern(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const glob = anchored ? pattern.slice(0, -1) : `${pattern}*`;
  let p = 0;
  let t = 0;
  let starAt = -1; // the last `*` seen in the glob, and where in the path it began matching
  let starFrom = 0;
  while (t < path.length) {
    if (glob[p] === '*') {
      starAt = p++;
      starFrom = t;
    } else if (p < glob.length && glob[p] === path[t]) {
      p++;
      t++;
    } else if (starAt >= 0) {
      p = starAt + 1;
      t = ++starFrom;
    } else {
      return false;
    }
  }
  while (glob[p] === '*') p++;
  return p === glob.length;
}
