import { tenantRegex, withMatchBudget } from '../common/safe-regex';
import { type CommandParameter, PARAMETER_PATTERN_FLAGS, placeholdersOf } from './command-parameters';
import { isFiller, wordSimilarity } from './matching';

/**
 * Fills a voice command's parameters from what the caller said (docs/voice-workflows.md "Commands
 * that take parameters"), without a model: first the words said where the command has the
 * placeholder, then a search of the whole utterance (the pattern, a number, one of the enum's
 * values). A value must fit its parameter (its pattern, its type). What is left is for the model
 * (src/sessions/turn/command-parameters-turn.ts), then for a question to the caller.
 */

/** A parameter's value as the run reads it (`trigger.<name>`). */
export type ParameterValue = string | number;

export interface FilledParameters {
  values: Record<string, ParameterValue>;
  /** The parameters still without a value, in their declared order. */
  missing: CommandParameter[];
}

/** A word as said, and as compared (lower case, letters and digits only). */
interface SaidWord {
  text: string;
  key: string;
}

const keyOf = (word: string) =>
  word
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** The words of a text, with the punctuation around them dropped ("A-1002," → "A-1002"). */
function saidWords(text: string): SaidWord[] {
  return text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean)
    .map((w) => ({ text: w, key: keyOf(w) }))
    .filter((w) => w.key !== '');
}

const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  [
    'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
    'sixteen seventeen eighteen nineteen twenty',
  ]
    .join(' ')
    .split(' ')
    .map((w, i) => [w, i]),
);

/** The first number said in a text (digits, or a number word up to twenty). */
function numberIn(text: string): number | undefined {
  const digits = /-?\d+(?:[.,]\d+)?/.exec(text.replace(/(\d),(\d{3})\b/g, '$1$2'));
  if (digits) return Number(digits[0].replace(',', '.'));
  const word = saidWords(text).find((w) => w.key in NUMBER_WORDS);
  return word ? NUMBER_WORDS[word.key] : undefined;
}

/** The value of the enum said in a text (every word of it, or a near match of a one-word value). */
function enumValueIn(values: string[], text: string): string | undefined {
  const said = saidWords(text).map((w) => w.key);
  return values.find((value) => {
    const words = saidWords(value).map((w) => w.key);
    if (words.length === 1) return said.some((w) => wordSimilarity(w, words[0]) >= 0.8);
    return words.length > 0 && words.every((w) => said.includes(w));
  });
}

/** The value a text gives a parameter, if it fits: its pattern's match, converted to its type. */
export function parameterValueIn(parameter: CommandParameter, text: string): ParameterValue | undefined {
  let found = text.trim();
  if (parameter.pattern !== undefined) {
    const pattern = parameter.pattern;
    const match = withMatchBudget(() => tenantRegex(pattern, PARAMETER_PATTERN_FLAGS).find(text));
    if (match === null || match.trim() === '') return undefined;
    found = match.trim();
  }
  const type = parameter.type ?? 'string';
  if (Array.isArray(type)) return enumValueIn(type, found);
  if (type === 'number' || type === 'integer') {
    const n = numberIn(found);
    return n !== undefined && (type === 'number' || Number.isInteger(n)) ? n : undefined;
  }
  return found === '' ? undefined : found;
}

/** A value the model gave a parameter, if it fits (as parameterValueIn checks what was said). */
export function parameterValueOf(parameter: CommandParameter, value: unknown): ParameterValue | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return parameterValueIn(parameter, String(value));
  return typeof value === 'string' ? parameterValueIn(parameter, value) : undefined;
}

/** The words said in each placeholder's place: between the command words around it, found in order. */
function wordsInPlaceOf(command: string, utterance: string): Map<string, string> {
  const tokens = command.split(/(\{[^{}]*\})|\s+/).filter(Boolean);
  const said = saidWords(utterance);
  const anchor = (token: string | undefined) => {
    const key = token && !token.startsWith('{') ? keyOf(token) : '';
    return key && !isFiller(key) ? key : undefined;
  };
  const indexOf = (key: string, from: number) =>
    said.findIndex((w, i) => i >= from && wordSimilarity(w.key, key) >= 0.8);
  const found = new Map<string, string>();
  const { names } = placeholdersOf(command);
  let at = 0;
  tokens.forEach((token, t) => {
    const name = /^\{(.*)\}$/.exec(token)?.[1];
    if (!name || !names.includes(name)) return;
    // the nearest command word on each side ('{': another placeholder comes first)
    const nearest = (side: string[]) => side.map((x) => (x.startsWith('{') ? '{' : anchor(x))).find(Boolean);
    const before = nearest(tokens.slice(0, t).reverse());
    const after = nearest(tokens.slice(t + 1));
    const beforeAt = before && before !== '{' ? indexOf(before, at) : at - 1;
    if (before && before !== '{' && beforeAt < 0) return;
    const start = beforeAt + 1;
    const afterAt = after && after !== '{' ? indexOf(after, start + 1) : -1;
    const end = afterAt < 0 ? said.length : afterAt;
    const words = said.slice(start, end);
    while (words.length && isFiller(words[0].key)) words.shift();
    while (words.length && isFiller(words[words.length - 1].key)) words.pop();
    if (words.length) found.set(name, words.map((w) => w.text).join(' '));
    at = end;
  });
  return found;
}

/** Parameters a search of the whole utterance can find: a pattern, a number, an enum's values. */
const searchable = (p: CommandParameter) => p.pattern !== undefined || (p.type ?? 'string') !== 'string';

/**
 * Fills the parameters from the utterance: the words in each placeholder's place, else a search of
 * the whole utterance. Pure; patterns run on the linear-time engine within their budget.
 */
export function fillParameters(
  command: string,
  parameters: CommandParameter[],
  utterance: string,
): FilledParameters {
  const inPlace = wordsInPlaceOf(command, utterance);
  const values: Record<string, ParameterValue> = {};
  const missing: CommandParameter[] = [];
  for (const parameter of parameters) {
    const placed = inPlace.get(parameter.name);
    const value =
      (placed === undefined ? undefined : parameterValueIn(parameter, placed)) ??
      (searchable(parameter) ? parameterValueIn(parameter, utterance) : undefined);
    if (value === undefined) missing.push(parameter);
    else values[parameter.name] = value;
  }
  return { values, missing };
}

/** What the caller says before an answer ("it's", "the", "um"), dropped from a whole-answer value. */
const LEAD_IN = /^(?:(?:it'?s|it is|that'?s|that is|sure|yes|yeah|ok(?:ay)?|um+|uh+|the|my|so|well)[\s,]+)+/i;

/**
 * Fills the missing parameters from the caller's answer to the question that named them: a search
 * of the answer, and for a plain string parameter (no pattern) left alone, the whole answer.
 */
export function fillFromAnswer(missing: CommandParameter[], answer: string): FilledParameters {
  const values: Record<string, ParameterValue> = {};
  const still: CommandParameter[] = [];
  const whole = answer
    .trim()
    .replace(LEAD_IN, '')
    .replace(/[.!?]+$/, '');
  const alone = missing.length === 1;
  for (const parameter of missing) {
    const value = searchable(parameter)
      ? parameterValueIn(parameter, answer)
      : alone && whole
        ? whole
        : undefined;
    if (value === undefined) still.push(parameter);
    else values[parameter.name] = value;
  }
  return { values, missing: still };
}
