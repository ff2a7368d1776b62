import fc from 'fast-check';
import type { SchemaArbitraries } from './schema-arbitrary';
import type { JsonSchema } from './schema-check';

/** Strings no sane client sends, but any may: control characters, NUL, lone surrogates, bidi overrides. */
export const ODD_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\r\n\t',
  '\ud800',
  '\u202eevil',
  '💥'.repeat(3),
  ' ',
  '../../etc/passwd',
  '{{secrets.NOPE}}',
  '%00',
  "'; drop table sessions; --",
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text a log4j-style lookup would expand
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
];

const WRONG_TYPES: Record<string, unknown[]> = {
  string: [0, -1, true, null, [], {}, ['a']],
  integer: ['1', 1.5, true, null, [], {}, 1e308, -1e308],
  number: ['1', true, null, [], {}, 'NaN'],
  boolean: ['true', 1, 0, null, [], {}],
  array: ['a', 1, true, null, {}],
  object: ['a', 1, true, null, [], [{}]],
  null: ['null', 0, false, {}],
};

/**
 * Values a schema (probably) refuses: wrong types, missing required fields, unknown fields, out of
 * range numbers, strings too long, too short or off pattern, NUL and control characters. Whether one
 * really breaks the schema is decided by schema-check.ts, not assumed here.
 */
export function invalidValue(gen: SchemaArbitraries, raw: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const schema = gen.resolve(raw);
  const branches: JsonSchema[] | undefined = schema.oneOf ?? schema.anyOf;
  if (branches && !schema.type) return fc.oneof(...branches.map((b) => invalidValue(gen, b, depth + 1)));
  const type: string = Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? 'object');
  const wrong = fc.constantFrom(...(WRONG_TYPES[type] ?? WRONG_TYPES.object));
  const options: fc.Arbitrary<unknown>[] = [wrong];
  if ('const' in schema || schema.enum) options.push(fc.constantFrom('not-a-member', '', 'ACTIVE'));
  if (type === 'string') options.push(...invalidStrings(gen, schema));
  if (type === 'integer' || type === 'number') options.push(invalidNumbers(schema, type));
  if (type === 'array') options.push(...invalidArrays(gen, schema, depth));
  if (type === 'object' && depth < 5) options.push(...invalidObjects(gen, schema, depth));
  return fc.oneof(...options);
}

function invalidStrings(gen: SchemaArbitraries, schema: JsonSchema): fc.Arbitrary<unknown>[] {
  const valid = gen.valid(schema) as fc.Arbitrary<string>;
  const options: fc.Arbitrary<unknown>[] = [
    fc.tuple(valid, fc.constantFrom(...ODD_STRINGS), fc.nat()).map(([s, odd, at]) => {
      const i = s.length === 0 ? 0 : at % s.length;
      return s.slice(0, i) + odd + s.slice(i);
    }),
    fc.constantFrom(...ODD_STRINGS),
  ];
  const max: number | undefined = schema.maxLength;
  options.push(fc.constantFrom((max ?? 4096) + 1, 70_000).map((n) => 'x'.repeat(n)));
  if ((schema.minLength ?? 0) > 0) options.push(fc.constant(''));
  if (schema.pattern) options.push(valid.map((s) => `#${s} `));
  return options;
}

function invalidNumbers(schema: JsonSchema, type: string): fc.Arbitrary<unknown> {
  const values: number[] = [-1, 0, 2 ** 31, 2 ** 53 + 2, 1e21];
  if (typeof schema.maximum === 'number') values.push(schema.maximum + 1);
  if (typeof schema.minimum === 'number') values.push(schema.minimum - 1);
  if (type === 'integer') values.push(1.5, (schema.minimum ?? 0) + 0.25);
  return fc.constantFrom(...values);
}

function invalidArrays(gen: SchemaArbitraries, schema: JsonSchema, depth: number): fc.Arbitrary<unknown>[] {
  const item = schema.items ?? {};
  const options: fc.Arbitrary<unknown>[] = [
    fc.array(invalidValue(gen, item, depth + 1), { minLength: 1, maxLength: 2 }),
  ];
  if (typeof schema.maxItems === 'number' && schema.maxItems < 600) {
    options.push(gen.valid(item).map((v) => Array.from({ length: schema.maxItems + 1 }, () => v)));
  }
  if ((schema.minItems ?? 0) > 0) options.push(fc.constant([]));
  return options;
}

function invalidObjects(gen: SchemaArbitraries, schema: JsonSchema, depth: number): fc.Arbitrary<unknown>[] {
  const valid = gen.valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const names = Object.keys(properties);
  const required: string[] = schema.required ?? [];
  const options: fc.Arbitrary<unknown>[] = [];
  if (required.length > 0) {
    options.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([value, name]) => {
        const { [name]: _dropped, ...rest } = value;
        return rest;
      }),
    );
  }
  if (schema.additionalProperties === false || names.length > 0) {
    options.push(
      fc
        .tuple(valid, fc.constantFrom('fuzzUnknown', '__proto__', 'constructor', '', 'a\u0000b'))
        .map(([value, name]) => ({ ...value, [name]: 1 })),
    );
  }
  if (names.length > 0) {
    options.push(
      fc
        .constantFrom(...names)
        .chain((name) =>
          fc
            .tuple(valid, invalidValue(gen, properties[name], depth + 1))
            .map(([value, bad]) => ({ ...value, [name]: bad })),
        ),
    );
  }
  return options.length > 0 ? options : [fc.constant([])];
}
