import fc from 'fast-check';
import { TEST_ADMIN_TOKEN } from '../env';
import { ODD_STRINGS } from './invalid-arbitrary';
import type { Operation, Parameter } from './openapi';
import { BAD_PATH_SEGMENTS, idsOf, kindOfParam } from './pools';
import type { SchemaArbitraries } from './schema-arbitrary';
import { type JsonSchema, schemaProblems } from './schema-check';
import type { Tenant } from './tenant';

/** A part of a request, with the reasons (if any) the document or the contract refuses it. */
export interface Part<T> {
  value: T;
  problems: string[];
}

export interface FuzzWorld {
  gen: SchemaArbitraries;
  /** Who the requests come from. */
  actor: Tenant;
  /** Whose ids the actor tries. */
  victim: Tenant;
}

/** The credential headers of the actor for the operation's scheme; `valid: false` ones must be a 401. */
export function credentials(
  op: Operation,
  world: FuzzWorld,
): fc.Arbitrary<{ headers: Record<string, string>; valid: boolean }> {
  const { dev, userHeaders, publisherHeaders } = world.actor;
  const ok = (headers: Record<string, string>) => ({ headers, valid: true });
  const bad = (headers: Record<string, string>) => ({ headers, valid: false });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const garbage = [
    bad({}),
    bad({ authorization: 'Bearer' }),
    bad({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
    bad(bearer(`pk_live_${'A'.repeat(40)}`)),
    bad(bearer('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')),
  ];
  switch (op.security) {
    case 'apiKey':
      return fc.oneof(
        { arbitrary: fc.constantFrom(ok(bearer(dev.liveKey)), ok(bearer(dev.testKey))), weight: 8 },
        {
          arbitrary: fc
            .constantFrom('live', 'test')
            .map((env) => ok({ ...bearer(dev.token), 'x-console-environment': env })),
          weight: 2,
        },
        { arbitrary: fc.constantFrom(...garbage), weight: 1 },
      );
    case 'idToken':
      return fc.oneof(
        { arbitrary: fc.constant(ok(bearer(dev.token))), weight: 8 },
        { arbitrary: fc.constantFrom(...garbage, bad(bearer(dev.liveKey))), weight: 1 },
      );
    case 'adminToken':
      return fc.oneof(
        { arbitrary: fc.constant(ok(bearer(TEST_ADMIN_TOKEN))), weight: 8 },
        { arbitrary: fc.constantFrom(...garbage, bad(bearer(`${TEST_ADMIN_TOKEN}x`))), weight: 1 },
      );
    case 'marketplaceUser':
      return fc.oneof(
        { arbitrary: fc.constant(ok(userHeaders)), weight: 8 },
        { arbitrary: fc.constant(bad({ 'x-subscription-tier': 'pro' })), weight: 1 },
      );
    case 'marketplacePublisher':
      return fc.oneof(
        { arbitrary: fc.constant(ok(publisherHeaders)), weight: 8 },
        { arbitrary: fc.constant(bad({ 'x-publisher-name': 'Nobody' })), weight: 1 },
      );
    default:
      return fc.constantFrom(ok({}), ok(bearer(dev.liveKey)));
  }
}

/** The path with each parameter filled: the actor's ids, the victim's, or (when `odd`) not ids at all. */
export function pathPart(op: Operation, world: FuzzWorld, odd: boolean): fc.Arbitrary<Part<string>> {
  if (op.pathParams.length === 0) return fc.constant({ value: op.path, problems: [] });
  const values = op.pathParams.map((param) => {
    const kinds = kindOfParam(op.path, param.name);
    const own = idsOf(world.actor, kinds);
    const theirs = idsOf(world.victim, kinds);
    const options: fc.WeightedArbitrary<{ raw: string; decoded: string }>[] = [];
    const plain = (ids: string[]) =>
      fc.constantFrom(...ids).map((id) => ({ raw: encodeComponent(id), decoded: id }));
    if (!odd && own.length) options.push({ arbitrary: plain(own), weight: 3 });
    if (!odd && theirs.length) options.push({ arbitrary: plain(theirs), weight: 4 });
    if (odd || options.length === 0) {
      options.push({ arbitrary: fc.constantFrom(...BAD_PATH_SEGMENTS).map(rawSegment), weight: 3 });
      options.push({
        arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map((s) => plainSegment(s)),
        weight: 1,
      });
    }
    return fc.oneof(...options).map((v) => ({ param, ...v }));
  });
  return fc.tuple(...values).map((filled) => {
    let path = op.path;
    const problems: string[] = [];
    for (const { param, raw, decoded } of filled) {
      path = path.replace(`{${param.name}}`, raw);
      if (decoded.includes('\u0000')) problems.push(`path ${param.name}: NUL`);
      else if (!isDecodable(raw)) problems.push(`path ${param.name}: a malformed escape`);
      else problems.push(...schemaProblems(world.gen.doc, decoded, param.schema, `path.${param.name}`));
    }
    return { value: path, problems };
  });
}

function rawSegment(raw: string): { raw: string; decoded: string } {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // a malformed escape: the service must refuse it, whatever it decodes it to
  }
  return { raw, decoded };
}

function isDecodable(raw: string): boolean {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
}

const plainSegment = (s: string) => ({ raw: encodeComponent(s), decoded: s });

/** encodeURIComponent, with a lone surrogate (which it cannot encode) replaced as a browser would. */
export function encodeComponent(s: string): string {
  return encodeURIComponent((s as unknown as { toWellFormed(): string }).toWellFormed());
}

/** A query string from the declared parameters; `odd` adds what the contract refuses or finds strange. */
export function queryPart(op: Operation, world: FuzzWorld, odd: boolean): fc.Arbitrary<Part<string>> {
  const declared = op.query.map((p) =>
    fc.option(
      fc.oneof(
        { arbitrary: world.gen.valid(p.schema, p.name).map(String), weight: 4 },
        { arbitrary: fc.constantFrom(...queryOddities(p)), weight: odd ? 3 : 0 },
      ),
      { nil: undefined, freq: p.required ? 10 : 2 },
    ),
  );
  const extra = odd
    ? fc.option(
        fc.constantFrom(
          'fuzz=1',
          'limit=1&limit=2',
          'limit[]=1',
          'a%00=1',
          '__proto__[x]=1',
          '=',
          '&&',
          'x=%ZZ',
        ),
        { freq: 2 },
      )
    : fc.constant(null);
  return fc.tuple(fc.tuple(...declared), extra).map(([values, more]) => {
    const pairs: string[] = [];
    const problems: string[] = [];
    values.forEach((value, i) => {
      if (value === undefined) {
        if (op.query[i].required) problems.push(`query ${op.query[i].name}: missing`);
        return;
      }
      pairs.push(`${encodeURIComponent(op.query[i].name)}=${encodeComponent(value)}`);
      problems.push(...queryValueProblems(world, op.query[i], value));
    });
    if (more) {
      pairs.push(more);
      if (!/^[&=]+$/.test(more)) problems.push(`query: ${more} is not declared`);
    }
    return { value: pairs.length ? `?${pairs.join('&')}` : '', problems };
  });
}

function queryOddities(p: Parameter): string[] {
  return [
    '',
    'abc',
    '-1',
    '0',
    '1.5',
    '1e400',
    'true',
    '\u0000',
    'x'.repeat(5000),
    ...ODD_STRINGS.slice(0, 6),
    p.name,
  ];
}

/** Why a query value breaks its parameter's schema: strings are read as the number or boolean it declares. */
function queryValueProblems(world: FuzzWorld, param: Parameter, raw: string): string[] {
  if (raw.includes('\u0000')) return [`query ${param.name}: NUL`];
  const schema: JsonSchema = world.gen.resolve(param.schema);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  let value: unknown = raw;
  if (type === 'integer' || type === 'number') value = raw.trim() === '' ? Number.NaN : Number(raw);
  if (type === 'boolean') value = raw === 'true' ? true : raw === 'false' ? false : raw;
  if (typeof value === 'number' && !Number.isFinite(value)) return [`query ${param.name}: not a number`];
  return schemaProblems(world.gen.doc, value, schema, `query.${param.name}`);
}

/** Declared header parameters (a subscription tier): valid, or (when `odd`) not. */
export function headerPart(
  op: Operation,
  world: FuzzWorld,
  odd: boolean,
): fc.Arbitrary<Part<Record<string, string>>> {
  if (op.headers.length === 0) return fc.constant({ value: {}, problems: [] });
  return fc
    .tuple(
      ...op.headers.map((p) =>
        odd
          ? fc.constantFrom('', 'FREE', 'platinum', 'pro,free', 'x'.repeat(300)).map((v) => [p, v] as const)
          : (world.gen.valid(p.schema, p.name) as fc.Arbitrary<unknown>).map((v) => [p, String(v)] as const),
      ),
    )
    .map((pairs) => {
      const value: Record<string, string> = {};
      const problems: string[] = [];
      for (const [p, v] of pairs) {
        value[p.name] = v;
        problems.push(...schemaProblems(world.gen.doc, v, p.schema, `header.${p.name}`));
      }
      return { value, problems };
    });
}
