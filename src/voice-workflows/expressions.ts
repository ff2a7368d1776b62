import jsep from 'jsep';
import { NODE_ID_PATTERN, type PathSegment, type Reference, resolveReference, type Scope } from './paths';

/**
 * Condition expressions (docs/api-contract.md "Condition expressions"): `<nodeId>.result.<path>`,
 * `input.<path>` and `trigger.<name>` (short for `input.trigger.<name>`) references; literals (numbers, quoted strings, `true`, `false`, `null`,
 * `[lists]`); `== != < <= > >=`, `&& || !`, parentheses and `in` (membership in a list, or substring
 * of a string).
 *
 * Parsing is jsep's (a maintained expression parser producing an AST); evaluation is ours, over
 * that AST only: there is no `eval`, no `new Function`, no property access outside the scope, no
 * calls. A missing path is `null`, never an exception. Workflow-safe (runs in the Temporal sandbox).
 */

jsep.addBinaryOp('in', 7);

const COMPARISONS = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);
const LOGICAL = new Set(['&&', '||']);

type Node = jsep.Expression;

/** A parsed expression and the references it reads. */
export interface CompiledExpression {
  ast: Node;
  refs: Reference[];
  /** Placeholder identifiers standing for node ids that are not JS identifiers. */
  aliases: Record<string, string>;
}

/** Applies `fn` to the parts of an expression outside its string literals. */
function outsideStrings(source: string, fn: (code: string) => string): string {
  return source
    .split(/("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/)
    .map((part, i) => (i % 2 === 1 ? part : fn(part)))
    .join('');
}

/**
 * jsep reads `order-lookup.result` as a subtraction, so node ids that are not plain identifiers are
 * replaced by aliases before parsing (outside string literals only).
 */
function aliasNodeIds(source: string, nodeIds: string[]): { text: string; aliases: Record<string, string> } {
  const aliases: Record<string, string> = {};
  const awkward = nodeIds
    .filter((id) => !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(id))
    .sort((a, b) => b.length - a.length);
  if (awkward.length === 0) return { text: source, aliases };
  const text = outsideStrings(source, (part) => {
    let out = part;
    awkward.forEach((id, n) => {
      const escaped = id.replace(/[-]/g, '\\-');
      const alias = `__node${n}`;
      const re = new RegExp(`(^|[^A-Za-z0-9_$.-])${escaped}(?=\\.result\\b)`, 'g');
      if (re.test(out)) {
        aliases[alias] = id;
        out = out.replace(re, `$1${alias}`);
      }
    });
    return out;
  });
  return { text, aliases };
}

/** `items.0.sku` → `items[0].sku` (outside string literals), which jsep can parse. */
function numericSegmentsAsIndexes(source: string): string {
  return outsideStrings(source, (part) => {
    let out = part;
    for (let previous = ''; previous !== out; ) {
      previous = out;
      out = out.replace(/(?<=[A-Za-z_$][\w$]*|\])\.(\d+)(?![\w$])/g, '[$1]');
    }
    return out;
  });
}

class ExpressionError extends Error {}

function memberChain(node: Node, aliases: Record<string, string>): Reference {
  const segments: PathSegment[] = [];
  let current: Node = node;
  while (current.type === 'MemberExpression') {
    const property = current.property as Node;
    if (current.computed) {
      if (
        property.type !== 'Literal' ||
        (typeof property.value !== 'number' && typeof property.value !== 'string')
      ) {
        throw new ExpressionError('only literal indexes like [0] or ["key"] are allowed');
      }
      segments.unshift(property.value as PathSegment);
    } else {
      segments.unshift((property as jsep.Identifier).name);
    }
    current = current.object as Node;
  }
  if (current.type === 'ThisExpression') throw new ExpressionError('this is not allowed');
  if (current.type !== 'Identifier')
    throw new ExpressionError('a reference must start with input, trigger or a node id');
  const root = aliases[(current as jsep.Identifier).name] ?? (current as jsep.Identifier).name;
  if (root === 'input') return { kind: 'input', path: segments };
  if (root === 'trigger') return { kind: 'input', path: ['trigger', ...segments] };
  if (!NODE_ID_PATTERN.test(root)) throw new ExpressionError(`${root} is not a node id`);
  if (segments[0] !== 'result') {
    throw new ExpressionError(`address a node's result as ${root}.result or ${root}.result.<path>`);
  }
  return { kind: 'node', nodeId: root, path: segments.slice(1) };
}

/** Checks the AST uses only the language above and collects its references. */
function check(node: Node, aliases: Record<string, string>, refs: Reference[]): void {
  switch (node.type) {
    case 'Literal':
      return;
    case 'Identifier':
    case 'MemberExpression':
      refs.push(memberChain(node, aliases));
      return;
    case 'ArrayExpression':
      for (const element of (node as jsep.ArrayExpression).elements) {
        if (element) check(element, aliases, refs);
      }
      return;
    case 'UnaryExpression': {
      const op = (node as jsep.UnaryExpression).operator;
      if (op !== '!' && op !== '-') throw new ExpressionError(`unsupported operator ${op}`);
      check((node as jsep.UnaryExpression).argument, aliases, refs);
      return;
    }
    case 'BinaryExpression': {
      const { operator, left, right } = node as jsep.BinaryExpression;
      if (!COMPARISONS.has(operator) && !LOGICAL.has(operator) && operator !== 'in') {
        throw new ExpressionError(`unsupported operator ${operator}`);
      }
      check(left, aliases, refs);
      check(right, aliases, refs);
      return;
    }
    case 'Compound':
      throw new ExpressionError('one expression only');
    case 'CallExpression':
      throw new ExpressionError('function calls are not allowed');
    case 'ThisExpression':
      throw new ExpressionError('this is not allowed');
    default:
      throw new ExpressionError(`unsupported syntax (${node.type})`);
  }
}

/** Parses and checks an expression; a message when it is not valid. */
export function compileExpression(source: string, nodeIds: string[]): CompiledExpression | string {
  if (source.trim() === '') return 'must not be empty';
  const { text, aliases } = aliasNodeIds(source, nodeIds);
  let ast: Node;
  try {
    ast = jsep(numericSegmentsAsIndexes(text));
  } catch (error) {
    const message =
      error instanceof Error ? error.message.replace(/__node(\d+)/g, (a) => aliases[a] ?? a) : 'invalid';
    return `cannot parse: ${message}`;
  }
  const refs: Reference[] = [];
  try {
    check(ast, aliases, refs);
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
  return { ast, refs, aliases };
}

export function truthy(value: unknown): boolean {
  return !(
    value === null ||
    value === undefined ||
    value === false ||
    value === 0 ||
    value === '' ||
    Number.isNaN(value)
  );
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (op === '==' || op === '===') return equal(a, b);
  if (op === '!=' || op === '!==') return !equal(a, b);
  const comparable =
    (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false; // a missing value or mixed types never compare
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function evaluateNode(node: Node, scope: Scope, aliases: Record<string, string>): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier':
    case 'MemberExpression':
      return resolveReference(memberChain(node, aliases), scope) ?? null;
    case 'ArrayExpression':
      return (node as jsep.ArrayExpression).elements.map((e) => (e ? evaluateNode(e, scope, aliases) : null));
    case 'UnaryExpression': {
      const { operator, argument } = node as jsep.UnaryExpression;
      const value = evaluateNode(argument, scope, aliases);
      if (operator === '!') return !truthy(value);
      return typeof value === 'number' ? -value : null;
    }
    case 'BinaryExpression': {
      const { operator, left, right } = node as jsep.BinaryExpression;
      if (operator === '&&')
        return truthy(evaluateNode(left, scope, aliases)) && truthy(evaluateNode(right, scope, aliases));
      if (operator === '||')
        return truthy(evaluateNode(left, scope, aliases)) || truthy(evaluateNode(right, scope, aliases));
      const a = evaluateNode(left, scope, aliases);
      const b = evaluateNode(right, scope, aliases);
      if (operator === 'in') {
        if (Array.isArray(b)) return b.some((item) => equal(item, a));
        if (typeof b === 'string' && typeof a === 'string') return b.includes(a);
        return false;
      }
      return compare(operator, a, b);
    }
    default:
      return null; // unreachable for compiled expressions
  }
}

/** Evaluates a compiled expression to a boolean (null, missing, false, 0 and '' are false). */
export function evaluateCompiled(compiled: CompiledExpression, scope: Scope): boolean {
  return truthy(evaluateNode(compiled.ast, scope, compiled.aliases));
}

/** Parses and evaluates; throws when the expression is invalid (definitions are validated first). */
export function evaluateExpression(source: string, nodeIds: string[], scope: Scope): boolean {
  const compiled = compileExpression(source, nodeIds);
  if (typeof compiled === 'string') throw new Error(`Invalid expression: ${compiled}`);
  return evaluateCompiled(compiled, scope);
}
