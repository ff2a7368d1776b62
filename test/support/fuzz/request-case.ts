import fc from 'fast-check';
import { invalidValue, ODD_STRINGS } from './invalid-arbitrary';
import type { Operation } from './openapi';
import { idsForField } from './pools';
import { credentials, type FuzzWorld, headerPart, type Part, pathPart, queryPart } from './request-parts';
import { anyJson } from './schema-arbitrary';
import { schemaProblems } from './schema-check';

/** One request the fuzzer sends, and what the answer must be by the document and the contract. */
export interface RequestCase {
  mode: Mode;
  method: string;
  /** Path and query string, as sent. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Why the request must be refused with a 4xx (empty: any answer but a 5xx will do). */
  problems: string[];
  /** The credential is missing or bad: the answer must be a 401. */
  unauthenticated: boolean;
}

type Mode = 'valid' | 'body' | 'query' | 'path' | 'headers';
const MODES: [Mode, number][] = [
  ['valid', 6],
  ['body', 3],
  ['query', 2],
  ['path', 2],
  ['headers', 2],
];

/** JSON bodies a parser must refuse (or that strain it), as text. */
const RAW_BODIES = [
  '{',
  '{"a":',
  '',
  'null',
  '1',
  '"text"',
  'true',
  '[]',
  '[{}]',
  '\ufeff{}',
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":1}}',
  `${'['.repeat(70)}${']'.repeat(70)}`,
  `{"a":"${'x'.repeat(1_100_000)}"}`,
  '{"a":"\\ud800"}',
  '{"a":1e999}',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'application/xml',
  'APPLICATION/JSON',
  'application/json; charset="UTF-8"',
];

export function requestCase(op: Operation, world: FuzzWorld): fc.Arbitrary<RequestCase> {
  return fc.oneof(...MODES.map(([mode, weight]) => ({ arbitrary: caseOfMode(op, world, mode), weight })));
}

function caseOfMode(op: Operation, world: FuzzWorld, mode: Mode): fc.Arbitrary<RequestCase> {
  const odd = (m: Mode) => mode === m;
  return fc
    .record({
      credential: credentials(op, world),
      path: pathPart(op, world, odd('path')),
      query: queryPart(op, world, odd('query')),
      headerParams: headerPart(op, world, odd('headers') && op.headers.length > 0),
      body: bodyPart(op, world, odd('body')),
      contentType: odd('headers')
        ? fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 5 })
        : fc.constant('application/json'),
      extraHeaders: odd('headers') ? oddHeaders() : fc.constant({}),
    })
    .map(({ credential, path, query, headerParams, body, contentType, extraHeaders }) => {
      const headers: Record<string, string> = {
        ...extraHeaders,
        ...credential.headers,
        ...headerParams.value,
      };
      const parts: Part<unknown>[] = [path, query, headerParams];
      if (body.value !== undefined) {
        if (contentType) headers['content-type'] = contentType;
        if (isJson(contentType)) parts.push(body);
        else if (body.value !== '')
          parts.push({ value: 0, problems: [`content type ${contentType}: not JSON`] });
      } else if (op.body) {
        parts.push({ value: undefined, problems: schemaProblems(world.gen.doc, {}, op.body, 'body') });
      }
      return {
        mode,
        method: op.method,
        url: path.value + query.value,
        headers,
        body: body.value,
        problems: parts.flatMap((p) => p.problems),
        unauthenticated: !credential.valid,
      };
    });
}

/** What the service reads as a body: `application/json` (any case), in UTF-8 (said or not); else a 415. */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;\s*charset="?utf-8"?)?$/i.test(contentType);
}

function oddHeaders(): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(
    fc.constantFrom(
      'x-request-id',
      'accept',
      'idempotency-key',
      'x-forwarded-for',
      'x-http-method-override',
      'origin',
    ),
    fc.oneof(
      fc.constantFrom(
        'x'.repeat(200),
        '../..',
        'DELETE',
        'text/html',
        '*/*;q=0',
        '1.2.3.4, 5.6.7.8',
        'null',
        '',
      ),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, '').trim()),
    ),
    { maxKeys: 3 },
  );
}

/** A body as text: valid by the schema, a mutated seeding body, an invalid value, or bytes no parser likes. */
function bodyPart(op: Operation, world: FuzzWorld, odd: boolean): fc.Arbitrary<Part<string | undefined>> {
  const { gen } = world;
  const options: fc.WeightedArbitrary<unknown>[] = [];
  // an update takes what its create took (partly): PUT /tools/{id} starts from POST /tools bodies
  const createKey = op.key.replace(/^PUT (.*)\/\{[^}]+\}$/, 'POST $1');
  const templates = world.actor.bodies[op.key] ?? world.actor.bodies[createKey] ?? [];
  if (op.body && !odd) {
    options.push({ arbitrary: gen.valid(op.body), weight: 3 });
    if (templates.length) {
      options.push({ arbitrary: fc.constantFrom(...templates), weight: 1 });
      options.push({ arbitrary: mutated(templates, world), weight: 4 });
    }
  } else if (!op.body && !odd) {
    return fc.constantFrom<Part<string | undefined>>(
      { value: undefined, problems: [] },
      { value: '{}', problems: [] },
    );
  }
  if (odd) {
    options.push({ arbitrary: op.body ? invalidValue(gen, op.body) : anyJson(), weight: 3 });
    options.push({ arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => new RawBody(text)), weight: 2 });
  }
  return fc.oneof(...options).map((value) => {
    const text = value instanceof RawBody ? value.text : JSON.stringify(value);
    return { value: text, problems: bodyProblems(op, world, text) };
  });
}

/** No string or key of the value holds an unpaired surrogate (a 400, docs/api-contract.md "Request validation"). */
function wellFormed(value: unknown): boolean {
  const ok = (t: string) => (t as unknown as { isWellFormed(): boolean }).isWellFormed();
  if (typeof value === 'string') return ok(value);
  if (typeof value !== 'object' || value === null) return true;
  return Object.entries(value).every(([key, child]) => ok(key) && wellFormed(child));
}

class RawBody {
  constructor(readonly text: string) {}
}

/** Why the service must refuse this JSON text as the operation's body (docs/api-contract.md "Request validation"). */
function bodyProblems(op: Operation, world: FuzzWorld, text: string): string[] {
  if (Buffer.byteLength(text) > 1024 * 1024) return ['body: over 1 MiB'];
  if (/\\u0000/.test(text)) return ['body: NUL'];
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch {
    return text === ''
      ? op.body
        ? schemaProblems(world.gen.doc, {}, op.body, 'body')
        : []
      : ['body: malformed JSON'];
  }
  if (typeof value !== 'object' || value === null) return ['body: not an object or array'];
  if (!wellFormed(value)) return ['body: an unpaired surrogate'];
  if (/^(\[|\{){65}/.test(text.replace(/\s/g, ''))) return ['body: nested over 64 levels'];
  if (!op.body) {
    const empty = !Array.isArray(value) && Object.keys(value).length === 0;
    return empty ? [] : ['body: this route takes none'];
  }
  return schemaProblems(world.gen.doc, value, op.body, 'body');
}

/**
 * A seeding body with one value swapped for the victim's id (of the kind an `…Id` field names, most
 * often), a secret reference, an odd string or any JSON, or dropped.
 */
function mutated(templates: unknown[], world: FuzzWorld): fc.Arbitrary<unknown> {
  const victimIds = Object.values(world.victim.ids).flat();
  const refs = [...world.actor.ids.secrets, ...world.victim.ids.secrets].map((n) => `{{secrets.${n}}}`);
  const anything = fc.oneof(
    fc.constantFrom(...victimIds, ...refs),
    fc.constantFrom(...ODD_STRINGS),
    anyJson(),
    fc.constant(DROP),
  );
  return fc.tuple(fc.constantFrom(...templates), fc.nat()).chain(([template, at]) => {
    const paths = pathsOf(template);
    const path = paths.length ? paths[at % paths.length] : [];
    const theirs = idsForField(world.victim, path[path.length - 1]);
    const value = theirs.length
      ? fc.oneof({ arbitrary: fc.constantFrom(...theirs), weight: 3 }, { arbitrary: anything, weight: 1 })
      : anything;
    return value.map((v) => replaced(template, path, v));
  });
}

function replaced(template: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(template);
  if (path.length === 0) return copy;
  const parent = path.slice(0, -1).reduce((node: any, key) => node[key], copy) as Record<string, unknown>;
  const key = path[path.length - 1];
  if (value === DROP) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else parent[key] = value;
  return copy;
}

const DROP = Symbol('drop');

function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    [...prefix, key],
    ...pathsOf(child, [...prefix, key]),
  ]);
}
