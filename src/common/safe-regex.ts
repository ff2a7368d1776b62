/**
 * The bound on the patterns tenants write (`replyMatches` expectations, `pattern` in an analysis
 * data schema; docs/personas.md): JavaScript's regex engine backtracks, so a pattern like `(a+)+$`
 * can take exponential time on a crafted reply. Rather
 * than a timeout, a pattern is refused at write time unless it has star height at most 1 (the check
 * safe-regex makes): no quantified group may contain a quantifier or an alternation, and no
 * backreferences. With the pattern capped at 200 characters and the text at REGEX_TEXT_LIMIT, what
 * remains runs in polynomial time of small degree.
 */

/** A reply is matched on at most this many characters. */
export const REGEX_TEXT_LIMIT = 10_000;
/** The longest pattern accepted. */
export const REGEX_PATTERN_LIMIT = 200;

interface Group {
  /** The group holds a quantifier or an alternation: quantifying it again could backtrack exponentially. */
  risky: boolean;
}

const QUANTIFIER_START = /^(?:[*+?]|\{\d+(?:,\d*)?\})/;

/** Why the pattern is refused, or null when it is acceptable. */
export function regexProblem(pattern: string, flags = ''): string | null {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
  const stack: Group[] = [{ risky: false }];
  let closed: Group | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const quantifier = QUANTIFIER_START.exec(pattern.slice(i));
    if (quantifier) {
      if (closed?.risky)
        return 'nested quantifiers (like `(a+)+`) can take exponential time; simplify the pattern';
      stack[stack.length - 1].risky = true;
      i += quantifier[0].length - 1;
      if (pattern[i + 1] === '?') i++; // a lazy quantifier
      closed = null;
      continue;
    }
    closed = null;
    if (c === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return 'backreferences are not allowed';
      i++;
    } else if (c === '[') {
      i = endOfClass(pattern, i);
    } else if (c === '(') {
      stack.push({ risky: false });
      i += groupPrefix(pattern.slice(i + 1)).length;
    } else if (c === ')') {
      const group = stack.pop() as Group;
      closed = group;
      if (group.risky) stack[stack.length - 1].risky = true;
    } else if (c === '|') {
      stack[stack.length - 1].risky = true;
    }
  }
  return null;
}

/** A group's `?:`, `?=`, `?!`, `?<=`, `?<!` or `?<name>` (not a quantifier). */
function groupPrefix(rest: string): string {
  return /^\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>)/.exec(rest)?.[0] ?? '';
}

/** The index of the `]` that closes the character class opened at `start`. */
function endOfClass(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}
