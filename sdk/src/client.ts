import { OPERATIONS, type ResourceTree } from './operations';
import { type Page, PagePromise } from './pagination';
import { openSocket, SessionStream } from './stream';
import { type RequestOptions, Transport } from './transport';
import { type UnwrapOptions, unwrapWebhook, type WebhookEvent, type WebhookHeaders } from './webhook-events';

export interface ClientOptions {
  /** An API key (`pk_live_…`, `pk_test_…`); for the console API (`client.console`), an ID token. */
  apiKey?: string;
  /** Where the API is, e.g. `https://voice.example.com` (the origin; paths are added). */
  baseUrl: string;
  /** Headers for every request (the marketplace's `x-user-id` / `x-publisher-id`). */
  headers?: Record<string, string>;
  /** Each attempt's timeout (default 60 000 ms). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

type Operation = (typeof OPERATIONS)[keyof typeof OPERATIONS];

/** Hand-written methods beside the generated ones. */
interface ClientExtras {
  webhooks: {
    /** Verifies a delivery's signature (Web Crypto) and returns its typed event. */
    unwrap(
      rawBody: string | Uint8Array,
      headers: WebhookHeaders,
      secret: string,
      options?: UnwrapOptions,
    ): Promise<WebhookEvent>;
  };
  sessions: {
    /** Opens the session's live voice stream. */
    stream(sessionId: string, options?: RequestOptions): Promise<SessionStream>;
  };
}

export type Resources = ResourceTree & {
  webhooks: ResourceTree['webhooks'] & ClientExtras['webhooks'];
  sessions: ResourceTree['sessions'] & ClientExtras['sessions'];
};

function pathOf(operation: Operation, ids: unknown[]): string {
  let index = 0;
  return operation.path.replace(/\{[A-Za-z0-9_]+\}/g, () => encodeURIComponent(String(ids[index++])));
}

/** `{ success: true, data }` answers resolve to `data`. */
const unwrapEnvelope = (body: unknown) =>
  typeof body === 'object' &&
  body !== null &&
  (body as { success?: unknown }).success === true &&
  'data' in body
    ? (body as { data: unknown }).data
    : body;

/** Calls one operation with the arguments of its generated method. */
function invoke(transport: Transport, operation: Operation, args: unknown[]): unknown {
  const count = operation.pathParams.length;
  const ids = args.slice(0, count);
  const argument = args[count] as Record<string, unknown> | undefined;
  const options = (args[count + 1] ?? {}) as RequestOptions;
  const method = operation.method.toUpperCase();
  const path = pathOf(operation, ids);
  if (operation.paginated) {
    const query = argument ?? {};
    const fetchPage = async (offset: number, limit: number | undefined) => {
      const answer = await transport.request({ method, path, query: { ...query, offset, limit }, options });
      return answer.body as Page<unknown>;
    };
    return new PagePromise(fetchPage, Number(query.offset ?? 0), query.limit as number | undefined);
  }
  const { idempotent } = operation;
  const request = operation.body
    ? { method, path, body: argument, options, idempotent }
    : { method, path, query: argument, options, idempotent };
  return transport.request(request).then((answer) => unwrapEnvelope(answer.body));
}

/** Builds the resource tree: a function per operation id, nested by its dots. */
function buildTree(transport: Transport): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const ids = Object.keys(OPERATIONS).sort((a, b) => b.split('.').length - a.split('.').length);
  // deepest ids first, so a method that is also a namespace (`install.tool`, `install.tool.delete`)
  // becomes a function carrying the members already placed under it
  for (const id of ids) {
    const parts = id.split('.');
    const name = parts.pop()!;
    let node = root;
    for (const part of parts) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    const operation = OPERATIONS[id as keyof typeof OPERATIONS];
    const method = (...args: unknown[]) => invoke(transport, operation, args);
    node[name] = Object.assign(method, node[name]);
  }
  return root;
}

/**
 * The platform's client: `new VoicePlatform({ apiKey, baseUrl })`, then one method per operation
 * id (`client.webhooks.create(…)`, `client.sessions.turns.create(id, …)`, `client.phoneNumbers.list()`,
 * `client.console.personas.list()`, `client.marketplace.browse.tools.list()`).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns the generated resources the interface declares
export class VoicePlatform {
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      headers: options.headers,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetries: options.maxRetries ?? 2,
      fetch: fetchImpl,
    });
    const tree = buildTree(this.transport) as Record<string, Record<string, unknown>>;
    tree.webhooks.unwrap = unwrapWebhook;
    tree.sessions.stream = (sessionId: string, requestOptions?: RequestOptions) =>
      this.openStream(sessionId, requestOptions);
    Object.assign(this, tree);
  }

  private async openStream(sessionId: string, options?: RequestOptions): Promise<SessionStream> {
    const path = `/api/v2/developers/sessions/${encodeURIComponent(sessionId)}`;
    const answer = await this.transport.request({ method: 'POST', path: `${path}/client-token`, options });
    const { token } = unwrapEnvelope(answer.body) as { token: string };
    const url = this.transport.url(`${path}/stream`, { token }).replace(/^http/, 'ws');
    return new SessionStream(await openSocket(url));
  }
}

// the generated resources, typed, on every instance
export interface VoicePlatform extends Resources {}
