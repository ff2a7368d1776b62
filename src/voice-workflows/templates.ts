import { parsePath, type Reference, resolveReference, type Scope } from './paths';

/**
 * Text templates of workflow nodes (docs/api-contract.md "Templates"): `{{<nodeId>.result}}`,
 * `{{<nodeId>.result.<path>}}`, `{{input}}`, `{{input.<path>}}`, `{{trigger.<name>}}` (a voice
 * command's parameter: short for `{{input.trigger.<name>}}`). Objects render as JSON, missing
 * values as an empty string. Workflow-safe (runs in the Temporal sandbox).
 */

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** Parses one placeholder's inside; a string describing the problem when it is not a reference. */
export function parseTemplateReference(text: string): Reference | string {
  if (text === 'input' || text.startsWith('input.') || text.startsWith('input[')) {
    const path = parsePath(text.slice('input'.length).replace(/^\./, ''));
    return path ? { kind: 'input', path } : `{{${text}}} is not a valid path`;
  }
  if (text === 'trigger' || text.startsWith('trigger.') || text.startsWith('trigger[')) {
    const path = parsePath(text.slice('trigger'.length).replace(/^\./, ''));
    return path ? { kind: 'input', path: ['trigger', ...path] } : `{{${text}}} is not a valid path`;
  }
  const m = /^([A-Za-z0-9_-]+)\.result(.*)$/.exec(text);
  if (!m) return `{{${text}}} must be {{<nodeId>.result…}}, {{input…}} or {{trigger…}}`;
  const rest = m[2];
  if (rest !== '' && !rest.startsWith('.') && !rest.startsWith('[')) {
    return `{{${text}}} must be {{<nodeId>.result…}}, {{input…}} or {{trigger…}}`;
  }
  const path = parsePath(rest.replace(/^\./, ''));
  return path ? { kind: 'node', nodeId: m[1], path } : `{{${text}}} is not a valid path`;
}

/** Every placeholder in a text: its references and the problems of those that are not references. */
export function templateReferences(text: string): { refs: Reference[]; problems: string[] } {
  const refs: Reference[] = [];
  const problems: string[] = [];
  for (const m of text.matchAll(TEMPLATE)) {
    const parsed = parseTemplateReference(m[1]);
    if (typeof parsed === 'string') problems.push(parsed);
    else refs.push(parsed);
  }
  return { refs, problems };
}

/** Every string inside a value (object values, array items), recursively. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

function renderValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Renders a text: each placeholder replaced by its value. */
export function renderText(text: string, scope: Scope): string {
  return text.replace(TEMPLATE, (whole, inner: string) => {
    const ref = parseTemplateReference(inner);
    return typeof ref === 'string' ? whole : renderValue(resolveReference(ref, scope));
  });
}

/**
 * Renders `mcp_call` arguments: strings are templated, objects and arrays recursively. A string that
 * is exactly one placeholder takes the value itself (a number stays a number, an object an object;
 * missing → null), so typed tool parameters can be fed from earlier results.
 */
export function renderArguments(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) {
      const ref = parseTemplateReference(whole[1]);
      if (typeof ref !== 'string') return resolveReference(ref, scope) ?? null;
    }
    return renderText(value, scope);
  }
  if (Array.isArray(value)) return value.map((item) => renderArguments(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderArguments(v, scope)]));
  }
  return value;
}
