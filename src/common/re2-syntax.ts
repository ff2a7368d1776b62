import { type AST, RegExpParser } from '@eslint-community/regexpp';

/**
 * A tenant's JavaScript pattern rewritten in RE2's syntax, with the meaning JavaScript gives it
 * (docs/security.md "Tenant regular expressions"). The pattern is parsed by regexpp (the parser
 * ESLint uses for ECMAScript patterns, Annex B included) and written back out node by node:
 * characters as `\x{…}` code points, `.`, `\s`, `^` and `$` spelt with JavaScript's meaning
 * (RE2's `\s` and `.` differ), capturing groups as plain groups (only whether the pattern matches
 * is asked). What RE2 cannot run in linear time (backreferences, lookahead, lookbehind) and what
 * only the `v` flag writes is refused with UnsupportedPattern.
 */
export class UnsupportedPattern extends Error {}

interface Mode {
  multiline: boolean;
  dotAll: boolean;
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator, as class ranges. */
const SPACE: [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

/** The ranges a set of sorted, disjoint ranges leaves out. */
function complement(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;

/** One code point: ASCII letters and digits as they are, anything else as `\x{…}`. */
function literal(cp: number): string {
  if (isSurrogate(cp))
    throw new UnsupportedPattern(
      'a lone surrogate (half of a character outside the Basic Multilingual Plane) cannot be matched; write the whole character, with the u flag in a character class',
    );
  return /^[A-Za-z0-9]$/.test(String.fromCodePoint(cp))
    ? String.fromCodePoint(cp)
    : `\\x{${cp.toString(16)}}`;
}

const rangesText = (ranges: [number, number][]) =>
  ranges.map(([from, to]) => (from === to ? literal(from) : `${literal(from)}-${literal(to)}`)).join('');
const SPACE_ITEMS = rangesText(SPACE);
const NOT_SPACE_ITEMS = rangesText(complement(SPACE));
const ANY_ITEMS = rangesText([[0, MAX_CODE_POINT]]);
/** What `.` matches without the `s` flag: anything but JavaScript's line terminators. */
const DOT = `[^${rangesText([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])}]`;

/** General categories by their long names (RE2 knows the short ones only). */
const CATEGORY_SHORT_NAMES: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/**
 * `\p{…}` / `\P{…}`: general categories and scripts under RE2's names, `Any` and `ASCII`; other
 * properties (binary ones such as `Emoji`, `Script_Extensions`) are refused.
 */
function property(set: AST.UnicodePropertyCharacterSet, inClass: boolean): string {
  const { key, value, negate } = set;
  if (key === 'ASCII') {
    const ranges: [number, number][] = negate ? [[0x80, MAX_CODE_POINT]] : [[0, 0x7f]];
    return inClass ? rangesText(ranges) : `[${rangesText(ranges)}]`;
  }
  const category = value !== null && ['General_Category', 'gc'].includes(key);
  const name = category
    ? (CATEGORY_SHORT_NAMES[value] ?? value)
    : value !== null && ['Script', 'sc'].includes(key)
      ? value
      : key === 'Any'
        ? 'Any'
        : null;
  if (name === null || set.strings)
    throw new UnsupportedPattern(`the Unicode property \\p{${set.raw.slice(3, -1)}} is not supported`);
  return `\\${negate ? 'P' : 'p'}{${name}}`;
}

/** A `\d \w \s \p{…}` escape, inside a class (`inClass`) or on its own. */
function escapeSet(set: AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet, inClass: boolean): string {
  if (set.kind === 'property') return property(set, inClass);
  if (set.kind === 'digit') return set.negate ? '\\D' : '\\d';
  if (set.kind === 'word') return set.negate ? '\\W' : '\\w';
  const items = set.negate ? NOT_SPACE_ITEMS : SPACE_ITEMS;
  return inClass ? items : `[${items}]`;
}

function characterClass(node: AST.CharacterClass): string {
  if (node.unicodeSets) throw new UnsupportedPattern('the set operations of the v flag are not supported');
  if (node.elements.length === 0) return node.negate ? `[${ANY_ITEMS}]` : `[^${ANY_ITEMS}]`;
  const items = node.elements.map((element) => {
    if (element.type === 'Character') return literal(element.value);
    if (element.type === 'CharacterClassRange')
      return `${literal(element.min.value)}-${literal(element.max.value)}`;
    return escapeSet(element, true);
  });
  return `[${node.negate ? '^' : ''}${items.join('')}]`;
}

function quantifier(node: AST.Quantifier, mode: Mode): string {
  const { min, max } = node;
  const count =
    min === 0 && max === Number.POSITIVE_INFINITY
      ? '*'
      : min === 1 && max === Number.POSITIVE_INFINITY
        ? '+'
        : min === 0 && max === 1
          ? '?'
          : max === Number.POSITIVE_INFINITY
            ? `{${min},}`
            : min === max
              ? `{${min}}`
              : `{${min},${max}}`;
  return `(?:${element(node.element, mode)})${count}${node.greedy ? '' : '?'}`;
}

/** A group's alternatives, under the flags its modifiers (`(?i-m:…)`) set. */
function group(node: AST.Group | AST.CapturingGroup, mode: Mode): string {
  const modifiers = node.type === 'Group' ? node.modifiers : null;
  if (!modifiers) return `(?:${alternatives(node.alternatives, mode)})`;
  const { add, remove } = modifiers;
  const inner: Mode = {
    multiline: add.multiline || (mode.multiline && !remove?.multiline),
    dotAll: add.dotAll || (mode.dotAll && !remove?.dotAll),
  };
  const caseFlag = add.ignoreCase ? 'i' : remove?.ignoreCase ? '-i' : '';
  return `(?${caseFlag}:${alternatives(node.alternatives, inner)})`;
}

function element(node: AST.Element, mode: Mode): string {
  switch (node.type) {
    case 'Character':
      return literal(node.value);
    case 'CharacterClass':
      return characterClass(node);
    case 'CharacterSet':
      return node.kind === 'any' ? (mode.dotAll ? `[${ANY_ITEMS}]` : DOT) : escapeSet(node, false);
    case 'Quantifier':
      return quantifier(node, mode);
    case 'Group':
    case 'CapturingGroup':
      return group(node, mode);
    case 'Backreference':
      throw new UnsupportedPattern('backreferences (`\\1`, `\\k<name>`) are not supported');
    case 'Assertion':
      if (node.kind === 'lookahead' || node.kind === 'lookbehind')
        throw new UnsupportedPattern(
          'lookahead and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`) are not supported',
        );
      if (node.kind === 'word') return node.negate ? '\\B' : '\\b';
      return mode.multiline ? `(?m:${node.kind === 'start' ? '^' : '$'})` : node.kind === 'start' ? '^' : '$';
    default:
      throw new UnsupportedPattern('the set operations of the v flag are not supported');
  }
}

/** An alternative's elements; outside `u` mode a character beyond U+FFFF is parsed as two halves, joined here. */
function sequence(elements: AST.Element[], mode: Mode): string {
  let out = '';
  for (let i = 0; i < elements.length; i++) {
    const [high, low] = [elements[i], elements[i + 1]];
    if (high.type === 'Character' && low?.type === 'Character' && isHighLow(high.value, low.value)) {
      out += literal(String.fromCharCode(high.value, low.value).codePointAt(0) as number);
      i++;
    } else out += element(high, mode);
  }
  return out;
}

const isHighLow = (high: number, low: number) =>
  high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;

function alternatives(list: AST.Alternative[], mode: Mode): string {
  return list.map((alternative) => sequence(alternative.elements, mode)).join('|');
}

/**
 * `pattern` (JavaScript syntax, compiled with `flags`) in RE2's syntax. `i` becomes RE2's own
 * flag (the caller's); `m` and `s` are spelt into the pattern. Throws UnsupportedPattern, or
 * regexpp's SyntaxError for a pattern that is not valid JavaScript.
 */
export function toRe2Syntax(pattern: string, flags: string): string {
  const parser = new RegExpParser({ ecmaVersion: 2025 });
  const ast = parser.parsePattern(pattern, 0, pattern.length, {
    unicode: flags.includes('u'),
    unicodeSets: flags.includes('v'),
  });
  return alternatives(ast.alternatives, { multiline: flags.includes('m'), dotAll: flags.includes('s') });
}
