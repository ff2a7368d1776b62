import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { ErrorBodySchema } from './errors';

/** The header a checked response carries when its body did not match its declared schema. */
export const RESPONSE_CHECK_HEADER = 'X-Response-Check';

const SCHEMA = Symbol('responseSchema');
type WithSchema = Response & { [SCHEMA]?: z.ZodType };

/** The route pipeline names the success schema of the answer being made (read by checkResponses). */
export function declareResponseSchema(res: Response, schema: z.ZodType): void {
  (res as WithSchema)[SCHEMA] = schema;
}

/**
 * Under test, every JSON answer of an API route is parsed against the schema it declares: a success
 * body against the route's success schema, an error body (status >= 400) against the error schema.
 * A mismatch is replaced by a 500 naming the problems, with `X-Response-Check: failed`, so the test
 * that made the request fails (test/support's client throws on that header whatever the status).
 * Mounted on the API roots only: health probes and docs have shapes of their own.
 */
export function checkResponses() {
  return (_req: Request, res: Response, next: NextFunction) => {
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      const declared = (res as WithSchema)[SCHEMA];
      const schema = res.statusCode >= 400 ? ErrorBodySchema : declared;
      if (!schema || res.getHeader(RESPONSE_CHECK_HEADER)) return send(body);
      const result = schema.safeParse(body);
      const problems = result.success
        ? undeclaredFields(body, result.data)
        : result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      if (problems.length === 0) return send(body);
      res.status(500).setHeader(RESPONSE_CHECK_HEADER, 'failed');
      return send({
        success: false,
        code: 'INTERNAL',
        error: `Response body does not match its declared ${schema === ErrorBodySchema ? 'error' : 'success'} schema: ${problems.join('; ')}`,
        validationErrors: problems,
      });
    };
    next();
  };
}

/**
 * Fields the body has that the schema does not declare (a plain object schema strips them when
 * parsing, so they would reach the client undocumented): every key of `sent` missing from `parsed`.
 */
function undeclaredFields(sent: unknown, parsed: unknown, path = ''): string[] {
  const problems: string[] = [];
  const stack: Array<[unknown, unknown, string]> = [[sent, parsed, path]];
  while (stack.length > 0) {
    const [a, b, at] = stack.pop()!;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (const [i, item] of a.entries()) stack.push([item, b[i], `${at}[${i}]`]);
    } else if (isPlainObject(a) && isPlainObject(b)) {
      for (const [key, value] of Object.entries(a)) {
        const child = at ? `${at}.${key}` : key;
        if (!(key in b)) {
          if (value !== undefined) problems.push(`${child}: not declared in the schema`);
        } else stack.push([value, b[key], child]);
      }
    }
  }
  return problems;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
