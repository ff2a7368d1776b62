/**
 * A JSON Schema checker for the subset the OpenAPI document uses ($ref to components, const, enum,
 * type (also as a list, with null), string lengths and pattern, number bounds, arrays, objects with
 * required, additionalProperties and propertyNames, oneOf, anyOf, allOf). It checks answers against
 * the document itself, independently of the zod schemas the document is generated from.
 */

export type JsonSchema = { [keyword: string]: any };

export interface SchemaDocument {
  components?: { schemas?: Record<string, JsonSchema> };
}

/** The schema a `$ref` names (`#/components/schemas/X`), followed until a schema without one. */
export function resolveRef(doc: SchemaDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unknown $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

const regexCache = new Map<string, RegExp>();
export function patternOf(source: string): RegExp {
  let regex = regexCache.get(source);
  if (!regex) {
    try {
      regex = new RegExp(source, 'u');
    } catch {
      regex = new RegExp(source);
    }
    regexCache.set(source, regex);
  }
  return regex;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** String rules: JSON Schema counts lengths in code points. */
export function stringProblems(value: string, schema: JsonSchema): string[] {
  const problems: string[] = [];
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength)
    problems.push(`shorter than ${schema.minLength}`);
  if (schema.maxLength !== undefined && length > schema.maxLength)
    problems.push(`longer than ${schema.maxLength}`);
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value))
    problems.push(`does not match ${schema.pattern.slice(0, 40)}`);
  return problems;
}

function numberProblems(value: number, schema: JsonSchema): string[] {
  const problems: string[] = [];
  if (schema.minimum !== undefined && value < schema.minimum) problems.push(`below ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum) problems.push(`above ${schema.maximum}`);
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
    problems.push(`not above ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
    problems.push(`not below ${schema.exclusiveMaximum}`);
  return problems;
}

function objectProblems(doc: SchemaDocument, value: Record<string, unknown>, schema: JsonSchema, at: string) {
  const problems: string[] = [];
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    if (!(name in value)) problems.push(`${at}.${name}: required`);
  }
  for (const [name, item] of Object.entries(value)) {
    const where = `${at}.${name}`;
    if (properties[name]) {
      problems.push(...schemaProblems(doc, item, properties[name], where));
      continue;
    }
    if (schema.propertyNames)
      problems.push(...schemaProblems(doc, name, schema.propertyNames, `${where}(name)`));
    if (schema.additionalProperties === false) problems.push(`${where}: not declared`);
    else if (typeof schema.additionalProperties === 'object')
      problems.push(...schemaProblems(doc, item, schema.additionalProperties, where));
  }
  return problems;
}

/** Every way `value` breaks `schema`, as `<path>: <problem>` ("" when it fits). */
export function schemaProblems(doc: SchemaDocument, value: unknown, raw: JsonSchema, at = '$'): string[] {
  const schema = resolveRef(doc, raw);
  const problems: string[] = [];
  if ('const' in schema && value !== schema.const)
    problems.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value))
    problems.push(`${at}: not one of ${schema.enum.join(', ')}`);
  const types: string[] | undefined =
    schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types && !types.some((t) => typeMatches(value, t))) {
    return [...problems, `${at}: a ${typeOf(value)}, not ${types.join(' or ')}`];
  }
  if (typeof value === 'string') problems.push(...stringProblems(value, schema).map((p) => `${at}: ${p}`));
  if (typeof value === 'number') problems.push(...numberProblems(value, schema).map((p) => `${at}: ${p}`));
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      problems.push(`${at}: too few items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      problems.push(`${at}: too many items`);
    if (schema.items) {
      for (const [i, item] of value.entries())
        problems.push(...schemaProblems(doc, item, schema.items, `${at}[${i}]`));
    }
  } else if (typeOf(value) === 'object' && (schema.properties || schema.additionalProperties !== undefined)) {
    problems.push(...objectProblems(doc, value as Record<string, unknown>, schema, at));
  }
  for (const part of schema.allOf ?? []) problems.push(...schemaProblems(doc, value, part, at));
  if (schema.anyOf && !schema.anyOf.some((s: JsonSchema) => schemaProblems(doc, value, s, at).length === 0)) {
    problems.push(`${at}: matches none of anyOf`);
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s: JsonSchema) => schemaProblems(doc, value, s, at).length === 0);
    if (matching.length !== 1) problems.push(`${at}: matches ${matching.length} of oneOf, not exactly 1`);
  }
  return problems;
}
