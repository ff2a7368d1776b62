import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { z } from 'zod';
import { REGEX_PATTERN_LIMIT, regexProblem, tenantRegExpEngine } from '../common/safe-regex';

/** The most a `dataSchema` may weigh as JSON: it goes into every analysis prompt. */
export const DATA_SCHEMA_MAX_BYTES = 8 * 1024;
/** The most a `successCriteria` rubric may hold. */
export const SUCCESS_CRITERIA_MAX_CHARS = 4000;

/**
 * One ajv instance for every data schema (JSON Schema 2020-12). `strict: false`: a schema written
 * for another draft with a keyword ajv does not know still compiles (the keyword is ignored).
 * Nothing is fetched: a `$ref` to another document fails to compile, so such a schema is refused.
 * Its `pattern`s and `patternProperties` keys run on the linear-time engine tenants' patterns run on
 * (src/common/safe-regex.ts), not on JavaScript's.
 */
const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  validateFormats: false,
  addUsedSchema: false,
  code: { regExp: tenantRegExpEngine },
});

/**
 * Compiled validators by schema text, bounded (oldest out first): a worker sees few distinct
 * schemas. An evicted schema is removed from ajv's own cache too, so neither grows without bound;
 * `addUsedSchema: false` keeps a schema's `$id` out of ajv's registry (two personas may use one).
 */
const compiled = new Map<string, { schema: Record<string, unknown>; validate: ValidateFunction }>();
const COMPILED_KEPT = 500;

/** The validator of a data schema (compiled once per distinct schema). Throws on a schema that is not one. */
export function dataSchemaValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known.validate;
  try {
    const validate = ajv.compile(schema);
    compiled.set(key, { schema, validate });
  } catch (error) {
    ajv.removeSchema(schema);
    throw error;
  }
  if (compiled.size > COMPILED_KEPT) {
    const [oldest, entry] = compiled.entries().next().value as [string, { schema: Record<string, unknown> }];
    compiled.delete(oldest);
    ajv.removeSchema(entry.schema);
  }
  return (compiled.get(key) as { validate: ValidateFunction }).validate;
}

/** Ajv's errors as `"<path>: <problem>"` lines, for a 400 or for the model's second try. */
export function schemaErrorLines(errors: ErrorObject[] | null | undefined, base = ''): string[] {
  return (errors ?? []).slice(0, 20).map((e) => `${base}${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}

/**
 * The `pattern`s and `patternProperties` keys anywhere in `node` that the linear-time engine cannot
 * run (src/common/safe-regex.ts: no backreferences or lookaround, at most REGEX_PATTERN_LIMIT
 * characters; ajv runs them with the `u` flag), as `"<path>: <problem>"`.
 */
function unsafePatterns(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => unsafePatterns(item, `${path}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const problems: string[] = [];
  const check = (pattern: string, where: string) => {
    const problem =
      pattern.length > REGEX_PATTERN_LIMIT
        ? `must be at most ${REGEX_PATTERN_LIMIT} characters`
        : regexProblem(pattern, 'u');
    if (problem) problems.push(`${where}: ${problem}`);
  };
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') check(value, `${path}/pattern`);
    if (key === 'patternProperties' && value && typeof value === 'object')
      for (const name of Object.keys(value)) check(name, `${path}/patternProperties/${name}`);
    problems.push(...unsafePatterns(value, `${path}/${key}`));
  }
  return problems;
}

/** The one JSON Schema dialect a data schema may name. */
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Why `schema` cannot be a data schema (empty when it can): size, the meta-schema, then compiling it. */
export function dataSchemaProblems(schema: Record<string, unknown>): string[] {
  if (Buffer.byteLength(JSON.stringify(schema)) > DATA_SCHEMA_MAX_BYTES)
    return [`must be at most ${DATA_SCHEMA_MAX_BYTES} bytes as JSON`];
  if (schema.type !== undefined && schema.type !== 'object')
    return ['must describe an object (`"type": "object"`): the fields to extract'];
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12)
    return [`$schema: must be ${DRAFT_2020_12} (or left out)`];
  const unsafe = unsafePatterns(schema, '');
  if (unsafe.length) return unsafe;
  try {
    if (!ajv.validateSchema(schema)) return schemaErrorLines(ajv.errors, 'is not a JSON Schema: ');
    dataSchemaValidator(schema);
    return [];
  } catch (error) {
    return [`does not compile: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * The manifest's optional `analysis` section (docs/personas.md "Post-call analysis"): after each
 * session of the persona ends, the model writes a summary, grades the call against the rubric and
 * extracts the fields of `dataSchema`.
 */
export const AnalysisSettingSchema = z
  .strictObject({
    summary: z.boolean().meta({ description: 'Write a short summary of each call' }),
    successCriteria: z
      .string()
      .trim()
      .min(1)
      .max(SUCCESS_CRITERIA_MAX_CHARS)
      .meta({ description: 'A rubric: what makes a call a success (the model answers passed and why)' }),
    dataSchema: z
      .record(z.string(), z.unknown())
      .superRefine((schema, refinement) => {
        for (const problem of dataSchemaProblems(schema))
          refinement.addIssue({ code: 'custom', message: problem });
      })
      .meta({
        description: `A JSON Schema (2020-12) of an object: the fields to extract from each call (at most ${DATA_SCHEMA_MAX_BYTES} bytes)`,
      }),
  })
  .partial()
  .meta({
    id: 'PersonaAnalysisSetting',
    description: 'Post-call analysis (docs/personas.md "Post-call analysis")',
  });
export type AnalysisSetting = z.infer<typeof AnalysisSettingSchema>;

/** True when the section asks for anything: an empty section analyses nothing. */
export const analysisWanted = (s: AnalysisSetting | undefined | null): s is AnalysisSetting =>
  !!s && (s.summary === true || s.successCriteria !== undefined || s.dataSchema !== undefined);
