import fc from 'fast-check';
import { type JsonSchema, patternOf, resolveRef, type SchemaDocument, stringProblems } from './schema-check';

/**
 * Strings worth trying for a field besides random ones: ids of both tenants, URLs of the test's own
 * servers, secret references. Given the field's name (the property it fills, if any).
 */
export type StringHints = (fieldName: string | undefined) => string[];

const MAX_DEPTH = 6;
/** Long enough to pass most bounds, short enough to keep a run quick. */
const MAX_GENERATED_LENGTH = 40;

/**
 * fast-check arbitraries of values that match a JSON schema of the OpenAPI document (the subset
 * schema-check.ts knows). Valid by the document; the service may still refuse them on grounds the
 * document cannot state (a URL that is not https, an unknown id), which is what a fuzzer wants.
 */
export class SchemaArbitraries {
  constructor(
    readonly doc: SchemaDocument,
    private readonly hints: StringHints = () => [],
  ) {}

  resolve(schema: JsonSchema): JsonSchema {
    return resolveRef(this.doc, schema);
  }

  valid(raw: JsonSchema, field?: string, depth = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const branches: JsonSchema[] | undefined = schema.oneOf ?? schema.anyOf;
    if (branches) return fc.oneof(...branches.map((b) => this.valid(b, field, depth + 1)));
    if (Array.isArray(schema.type)) {
      return fc.oneof(...schema.type.map((type: string) => this.valid({ ...schema, type }, field, depth)));
    }
    switch (schema.type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: bound(schema.minimum, -1e6), max: bound(schema.maximum, 1e6) });
      case 'number':
        return fc.double({
          min: bound(schema.minimum, -1e6),
          max: bound(schema.maximum, 1e6),
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'string':
        return this.string(schema, field);
      case 'array':
        return fc.array(this.valid(schema.items ?? {}, field, depth + 1), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
        });
      case 'object':
        return this.object(schema, depth);
      default:
        return depth >= MAX_DEPTH ? fc.constant({}) : anyJson();
    }
  }

  private string(schema: JsonSchema, field: string | undefined): fc.Arbitrary<string> {
    const hinted = this.hints(field).filter((s) => stringProblems(s, schema).length === 0);
    const generated = this.randomString(schema);
    if (hinted.length === 0) return generated;
    return fc.oneof(
      { arbitrary: generated, weight: 2 },
      { arbitrary: fc.constantFrom(...hinted), weight: 3 },
    );
  }

  private randomString(schema: JsonSchema): fc.Arbitrary<string> {
    if (schema.format === 'date-time') {
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2099-12-31T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    }
    const minLength = schema.minLength ?? 0;
    const maxLength = Math.max(
      minLength,
      Math.min(schema.maxLength ?? MAX_GENERATED_LENGTH, MAX_GENERATED_LENGTH),
    );
    if (schema.pattern) {
      return fc
        .stringMatching(patternOf(schema.pattern))
        .filter((s) => stringProblems(s, schema).length === 0);
    }
    return fc
      .oneof(
        { arbitrary: fc.string({ minLength, maxLength }), weight: 4 },
        { arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }), weight: 1 },
      )
      .filter((s) => stringProblems(s, schema).length === 0);
  }

  private object(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties: Record<string, JsonSchema> = schema.properties ?? {};
    const names = Object.keys(properties);
    if (names.length === 0) {
      if (schema.additionalProperties === false || depth >= MAX_DEPTH) return fc.constant({});
      const keys = schema.propertyNames
        ? (this.valid(schema.propertyNames, undefined, depth + 1) as fc.Arbitrary<string>)
        : fc.string({ maxLength: 12 });
      const values =
        typeof schema.additionalProperties === 'object'
          ? this.valid(schema.additionalProperties, undefined, depth + 1)
          : anyJson();
      return fc.dictionary(keys, values, { maxKeys: 3 });
    }
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of names) model[name] = this.valid(properties[name], name, depth + 1);
    return fc.record(model, { requiredKeys: (schema.required ?? []).filter((n: string) => n in properties) });
  }
}

/** Any small JSON value (what `{}` or `additionalProperties: {}` allows). */
export function anyJson(): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)));
}

/** A schema bound, or `fallback` when it has none; within what fc.integer takes (32 bits). */
function bound(value: unknown, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.max(-2_000_000_000, Math.min(value, 2_000_000_000));
}
