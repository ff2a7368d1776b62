import type { JsonSchema, SchemaDocument } from './schema-check';

export interface OpenApiDocument extends SchemaDocument {
  paths: Record<string, Record<string, OperationObject>>;
}

interface OperationObject {
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** What a response of one status declares: its media type and the schema of a JSON body. */
export interface DeclaredResponse {
  mediaType: string | undefined;
  schema: JsonSchema | undefined;
}

/** One operation of the document, as the fuzzer drives it. */
export interface Operation {
  /** `GET /api/v2/developers/webhooks/{id}` */
  key: string;
  method: string;
  /** The path template, `{name}` for each path parameter. */
  path: string;
  /** The security scheme (`apiKey`, `idToken`, `adminToken`, `marketplaceUser`, `marketplacePublisher`), if any. */
  security: string | undefined;
  pathParams: Parameter[];
  query: Parameter[];
  headers: Parameter[];
  body: JsonSchema | undefined;
  responses: Record<string, DeclaredResponse>;
}

/** The document's operations, ordered so reads come before writes and deletes last. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const of = (where: string): Parameter[] =>
        params
          .filter((p) => p.in === where)
          .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? {} }));
      const responses: Record<string, DeclaredResponse> = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const [mediaType, content] = Object.entries(response.content ?? {})[0] ?? [];
        responses[status] = { mediaType, schema: content?.schema };
      }
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        security: op.security?.[0] ? Object.keys(op.security[0])[0] : undefined,
        pathParams: of('path'),
        query: of('query'),
        headers: of('header'),
        body: op.requestBody?.content?.['application/json']?.schema,
        responses,
      });
    }
  }
  return operations.sort((a, b) => rank(a) - rank(b) || a.key.localeCompare(b.key));
}

/** Reads first, then creates and updates, then ends, revocations and deletes (they take ids away). */
function rank(op: Operation): number {
  if (op.method === 'GET') return 0;
  if (op.method === 'DELETE') return 3;
  if (/\/(end|unpublish|rotate-secret|retry)$/.test(op.path)) return 2;
  return 1;
}

/** The API root an operation belongs to, by its path. */
export function rootOf(op: Operation): 'platform' | 'console' | 'marketplace' | 'admin' {
  if (op.path.startsWith('/api/v2/')) return 'platform';
  if (op.path.startsWith('/api/v1/')) return 'console';
  if (op.path.startsWith('/api/admin/')) return 'admin';
  return 'marketplace';
}
