import http from 'node:http';
import { RESPONSE_CHECK_HEADER } from '../../../src/http/response-check';
import type { Operation } from './openapi';
import type { RequestCase } from './request-case';
import { type JsonSchema, resolveRef, type SchemaDocument, schemaProblems } from './schema-check';
import type { Kind, Tenant } from './tenant';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Set when no HTTP answer came (connection dropped, timeout). */
  failure?: string;
}

/**
 * Sends a fuzz case over node:http (fetch refuses a GET with a body, which any client can send); a
 * dropped connection or 30 s of silence is an answer too (a failure).
 */
export function send(baseUrl: string, c: RequestCase): Promise<Answer> {
  return new Promise((resolve) => {
    const fail = (failure: string) => resolve({ status: 0, headers: new Headers(), text: '', failure });
    // a length always: node:http sends a GET's or DELETE's body with neither length nor chunking
    const headers =
      c.body === undefined ? c.headers : { ...c.headers, 'content-length': Buffer.byteLength(c.body) };
    const { hostname, port } = new URL(baseUrl);
    // the path as is: a URL object would resolve `..` and normalize escapes before sending
    const options = { hostname, port, path: c.url, method: c.method, headers, timeout: 30_000 };
    const req = http.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => fail(String(error)));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of [value ?? []].flat()) headers.append(name, v);
        }
        resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (error) => fail(String(error)));
    req.end(c.body);
  });
}

/** What the fuzzer knows while it checks answers. */
export interface Watch {
  doc: SchemaDocument;
  actor: Tenant;
  victim: Tenant;
  /** Values no answer may hold: every secret value and credential of both tenants. */
  secrets: string[];
  /** The victim's private strings the actor has sent so far (it may see them echoed). */
  sentByActor: Set<string>;
  /** Whether the actor is another tenant (false for the operator, who may see and change any account). */
  isolation: boolean;
}

/** Kinds whose ids name another account's resource when given in a body. */
const RESOURCE_KINDS: Kind[] = [
  'personas',
  'webhooks',
  'deliveries',
  'mcp',
  'tools',
  'workflows',
  'executions',
  'sessions',
  'activities',
  'oauthProviders',
  'oauthTokens',
  'keys',
  'mktInstallations',
  'mktSessions',
];

/**
 * Operations whose body ids are documented as free-form, not references the service resolves: an
 * activity's sessionId and personaId ("Only their format is checked", docs/activities.md) and a
 * sandbox event's sample data. Everywhere else an id in a body must be the caller's
 * (docs/api-contract.md "Environments and ownership").
 */
const FREE_FORM_IDS = new Set([
  'POST /api/v2/developers/activities',
  'PUT /api/v2/developers/activities/{id}',
  'POST /api/v2/developers/events/trigger',
]);

/** Everything wrong with an answer to `c` (properties 1, 2 and 4 of the fuzzer, and 3's "nothing revealed"). */
export function answerProblems(op: Operation, c: RequestCase, answer: Answer, watch: Watch): string[] {
  if (answer.failure) return [`no answer: ${answer.failure}`];
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 500) problems.push(`${status}: ${answer.text.slice(0, 300)}`);
  const checked = answer.headers.get(RESPONSE_CHECK_HEADER);
  if (checked) problems.push(`the app's response check failed: ${answer.text.slice(0, 500)}`);
  problems.push(...declaredShapeProblems(op, answer, watch.doc));
  if (c.problems.length > 0 && status < 400) {
    problems.push(`${status} for a request the contract refuses (${c.problems.slice(0, 3).join('; ')})`);
  }
  if (c.unauthenticated && op.security && (status < 400 || (c.problems.length === 0 && status !== 401))) {
    problems.push(`${status} without a valid credential (want 401)`);
  }
  const exposed = [answer.text, ...answer.headers.values()].join('\n');
  for (const secret of watch.secrets) {
    if (exposed.includes(secret))
      problems.push(`answer holds a secret value or credential (${secret.slice(0, 14)}…)`);
  }
  if (!watch.isolation) return problems;
  for (const value of victimStrings(watch)) {
    if (!watch.sentByActor.has(value) && exposed.includes(value))
      problems.push(`answer reveals ${watch.victim.label}'s ${value}`);
  }
  if (status < 300 && c.method !== 'GET' && !FREE_FORM_IDS.has(op.key)) {
    const theirs = new Set(RESOURCE_KINDS.flatMap((k) => watch.victim.ids[k]));
    for (const [field, id] of idFields(watch.doc, c.body, op.body)) {
      if (theirs.has(id)) problems.push(`${status}: took ${watch.victim.label}'s ${id} as ${field}`);
    }
  }
  return problems;
}

/** `…Id` fields that name no platform resource: the developer's own end-user id, an OAuth client id. */
const NOT_REFERENCES = new Set(['userId', 'clientId']);

/**
 * Every `…Id` property the body schema declares (an id of another resource), with its value, found
 * in the body. Keys of free-form objects (a tool's arguments, metadata, a payload) are not declared
 * properties, so an `orderId` argument is not taken for a reference.
 */
function idFields(
  doc: SchemaDocument,
  body: string | undefined,
  schema: JsonSchema | undefined,
): [string, string][] {
  let value: unknown;
  try {
    value = JSON.parse(body ?? '');
  } catch {
    return [];
  }
  const found: [string, string][] = [];
  const pending: [unknown, JsonSchema][] = schema ? [[value, schema]] : [];
  while (pending.length > 0) {
    const [current, raw] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const resolved = resolveRef(doc, raw);
    const branches = [resolved, ...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])].map((b) =>
      resolveRef(doc, b),
    );
    for (const branch of branches) {
      if (Array.isArray(current)) {
        if (branch.items) for (const item of current) pending.push([item, branch.items]);
        continue;
      }
      for (const [key, declared] of Object.entries<JsonSchema>(branch.properties ?? {})) {
        const child = (current as Record<string, unknown>)[key];
        if (/Id$/.test(key) && !NOT_REFERENCES.has(key) && typeof child === 'string')
          found.push([key, child]);
        else if (child !== undefined) pending.push([child, declared]);
      }
    }
  }
  return found;
}

function victimStrings(watch: Watch): string[] {
  return watch.victim.privateStrings;
}

/** A 2xx must be a declared status with a body of its declared schema; a 4xx, the error body. */
function declaredShapeProblems(op: Operation, answer: Answer, doc: SchemaDocument): string[] {
  const { status } = answer;
  const contentType = answer.headers.get('content-type') ?? '';
  if (status >= 200 && status < 300) {
    const declared = op.responses[String(status)];
    if (!declared)
      return [`${status} is not a declared answer (declared: ${Object.keys(op.responses).join(', ')})`];
    if (declared.mediaType && !contentType.startsWith(declared.mediaType))
      return [`${status} as ${contentType}, declared ${declared.mediaType}`];
    if (declared.mediaType !== 'application/json' || !declared.schema) return [];
    return jsonProblems(doc, answer.text, declared.schema, `${status} body`);
  }
  if (status >= 400 && status < 500) {
    if (!contentType.startsWith('application/json'))
      return [`${status} as ${contentType || 'no content type'}`];
    return jsonProblems(doc, answer.text, { $ref: '#/components/schemas/Error' }, `${status} error body`);
  }
  return status >= 300 && status < 400 ? [`${status}: a redirect`] : [];
}

function jsonProblems(doc: SchemaDocument, text: string, schema: object, what: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${what} is not JSON: ${text.slice(0, 100)}`];
  }
  return schemaProblems(doc, body, schema).map((p) => `${what} off its schema: ${p}`);
}

/** The victim's private strings found in a request the actor sends (they may come back to it). */
export function noteSent(c: RequestCase, watch: Watch): void {
  const sent = [c.url, c.body ?? '', ...Object.values(c.headers)].join('\n');
  let decoded = sent;
  try {
    decoded = decodeURIComponent(sent);
  } catch {
    // a deliberately malformed escape: the raw text is what was sent
  }
  for (const value of victimStrings(watch)) {
    if (sent.includes(value) || decoded.includes(value)) watch.sentByActor.add(value);
  }
}
