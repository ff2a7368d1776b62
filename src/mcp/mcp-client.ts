import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as McpProtocolError } from '@modelcontextprotocol/sdk/types.js';
import type { CoreContext } from '../common/context';
import type { PooledConnection } from '../common/mcp-connections';
import type { Owner } from '../common/owner';
import { accessTokenFor } from '../oauth';
import { ANSWER_LIMITS, type AnswerLimits, OutboundError } from '../outbound/answer-limits';
import { type FetchLike, guardedFetch } from '../outbound/fetch';
import type { OutboundPolicy } from '../outbound/http';
import { renderSecretHeaders, resolveSecrets, scrubSecrets, secretNamesIn } from '../secrets';
import { type McpServer, mcpHeadersAad } from './mcp-server.entity';

export const MCP_TIMEOUT_MS = 15_000;

const CLIENT_INFO = { name: 'voice-agent-platform', version: '1.0.0' };

/** A failure to reach or talk to an MCP server, with a message fit for the developer. */
export class McpError extends Error {
  /**
   * `connect`: the server was never reached or refused the handshake, so nothing ran there.
   * `tooLarge`: the server's answer passed its cap (ANSWER_LIMITS.mcpServer).
   */
  constructor(
    message: string,
    readonly phase: 'connect' | 'call' = 'call',
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = 'McpError';
  }
}

export function storedHeaders(ctx: CoreContext, server: McpServer): Record<string, string> {
  if (!server.headersCiphertext) return {};
  return JSON.parse(ctx.encryptor.decrypt(server.headersCiphertext, mcpHeadersAad(server)));
}

/** The headers sent to a server: `{{secrets.NAME}}` filled in, plus the OAuth bearer token when set. */
async function requestHeaders(ctx: CoreContext, em: EntityManager, owner: Owner, server: McpServer) {
  const headers = storedHeaders(ctx, server);
  const secrets = await resolveSecrets(em, ctx.encryptor, owner, secretNamesIn(Object.values(headers)));
  const rendered = renderSecretHeaders(headers, secrets);
  const sensitive = [...secrets.values()];
  if (server.oauthTokenId) {
    const token = await accessTokenFor(ctx, owner, server.oauthTokenId);
    rendered.Authorization = `Bearer ${token}`;
    sensitive.push(token);
  }
  return { headers: rendered, sensitive };
}

type Cause = { code?: string; message?: string; name?: string; cause?: unknown; errors?: unknown[] };

/** The innermost cause with a system error code or a guard refusal (fetch wraps them in layers). */
function rootCause(error: unknown): Cause | undefined {
  let current = (error as Cause | undefined)?.cause as Cause | undefined;
  for (let depth = 0; current && depth < 6; depth++) {
    if (current.code || current.name === 'BlockedDestinationError') return current;
    current = (current.cause ?? current.errors?.[0]) as Cause | undefined;
  }
  return undefined;
}

/** The OutboundError behind a failed exchange (a refused, late or oversized answer), if one is. */
function outboundFailure(error: unknown): OutboundError | undefined {
  let current = error as Cause | undefined;
  for (let depth = 0; current && depth < 6; depth++) {
    if (current instanceof OutboundError) return current;
    current = current.cause as Cause | undefined;
  }
  return undefined;
}

/** Answers past their cap, by the client whose connection they closed. */
const refusedAnswers = new WeakMap<Client, OutboundError>();

/**
 * The SSRF-guarded fetch of one MCP connection, within `limits`. An answer past the cap closes the
 * connection at once, so every call waiting on it fails (with `refusedAnswer` as its reason) instead
 * of waiting for its timeout: an answer streamed as events is read apart from the call it answers.
 */
export function mcpFetch(
  policy: OutboundPolicy,
  client: Client,
  limits: AnswerLimits = ANSWER_LIMITS.mcpServer,
): FetchLike {
  return guardedFetch(policy, limits, {
    onTooLarge: (error) => {
      if (!refusedAnswers.has(client)) refusedAnswers.set(client, error);
      void client.close().catch(() => undefined);
    },
  });
}

/** The oversized answer that closed `client`'s connection, if one did: the reason its calls failed. */
export function refusedAnswer(client: Client): OutboundError | undefined {
  return refusedAnswers.get(client);
}

/** A clear message for a failed MCP exchange; secret values are scrubbed from it. */
export function describeMcpFailure(error: unknown, endpoint: string, sensitive: string[] = []): string {
  let message: string;
  const cause = rootCause(error);
  const outbound = outboundFailure(error);
  if (outbound?.kind === 'blocked') message = `Refused: ${outbound.message}`;
  else if (outbound?.kind === 'too_large') message = `Response too large: ${endpoint}: ${outbound.message}`;
  else if (outbound?.kind === 'timeout') message = `${endpoint} did not answer in time: ${outbound.message}`;
  else if (cause?.name === 'BlockedDestinationError') message = `Refused: ${cause.message}`;
  else if (cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') {
    message = `Could not connect to ${endpoint} (${cause.code})`;
  } else if (
    error instanceof Error &&
    /Streamable HTTP error|SSE error|HTTP [45]\d\d|Unexpected content type|Invalid|JSON/i.test(error.message)
  ) {
    message = `${endpoint} did not answer as an MCP server: ${error.message}`;
  } else if (error instanceof Error && /timed out|timeout/i.test(error.message)) {
    message = `${endpoint} did not answer within ${MCP_TIMEOUT_MS / 1000} s`;
  } else {
    message = error instanceof Error ? error.message : String(error);
  }
  return scrubSecrets(message, sensitive);
}

/** Whether a failed exchange was an answer past its cap. */
export function isAnswerTooLarge(error: unknown): boolean {
  return outboundFailure(error)?.kind === 'too_large' || (error instanceof McpError && error.tooLarge);
}

/**
 * Connects to a server (initialize). Streamable HTTP for `http`, the older HTTP+SSE transport for
 * `sse`; every request goes through the SSRF-guarded fetch. Failing here means nothing ran there.
 */
async function openMcpConnection(
  ctx: CoreContext,
  server: McpServer,
  headers: Record<string, string>,
  sensitive: string[],
): Promise<PooledConnection<Client>> {
  const client = new Client(CLIENT_INFO);
  const fetch = mcpFetch(ctx.config.outbound, client);
  const url = new URL(server.endpoint);
  const transport =
    server.transport === 'sse'
      ? new SSEClientTransport(url, {
          requestInit: { headers },
          eventSourceInit: {
            fetch: (u, init) => fetch(u, { ...init, headers: { ...headers, ...(init?.headers as object) } }),
          },
          fetch,
        })
      : new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch });
  try {
    await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    const failure = refusedAnswer(client) ?? error;
    const message = describeMcpFailure(failure, server.endpoint, sensitive);
    throw new McpError(message, 'connect', isAnswerTooLarge(failure));
  }
  return {
    client,
    close: async () => {
      // a stateful Streamable HTTP server is told the session is over (DELETE), best effort
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
        await transport.terminateSession().catch(() => undefined);
      }
      await client.close().catch(() => undefined);
    },
  };
}

/** Reports a failed exchange as an McpError: `connect` when the request never reached the server. */
function asMcpError(error: unknown, server: McpServer, sensitive: string[]): McpError {
  if (error instanceof McpError) return error;
  const cause = rootCause(error);
  const unreached =
    cause?.name === 'BlockedDestinationError' || (cause?.code !== undefined && UNREACHED.has(cause.code));
  const message = describeMcpFailure(error, server.endpoint, sensitive);
  return new McpError(message, unreached ? 'connect' : 'call', isAnswerTooLarge(error));
}
const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A fresh connection for `fn`, closed after (registration, tools/list, the connection test). */
export async function withMcpClient<T>(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  server: McpServer,
  fn: (client: Client, sensitive: string[]) => Promise<T>,
): Promise<T> {
  const { headers, sensitive } = await requestHeaders(ctx, em, owner, server);
  const connection = await openMcpConnection(ctx, server, headers, sensitive);
  try {
    return await fn(connection.client, sensitive);
  } catch (error) {
    throw asMcpError(refusedAnswer(connection.client) ?? error, server, sensitive);
  } finally {
    await connection.close();
  }
}

/**
 * `fn` on a kept connection to the server (tool calls): see McpConnectionPool. A protocol-level
 * error (the server answered with a JSON-RPC error, or a request timed out) keeps the connection;
 * a transport failure drops it, and an expired session (HTTP 404, the request was not handled) is
 * retried once on a new session, as the MCP specification asks of clients.
 */
export async function withPooledMcpClient<T>(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  server: McpServer,
  fn: (client: Client, sensitive: string[]) => Promise<T>,
): Promise<T> {
  return (await pooledMcpClient(ctx, em, owner, server))(fn);
}

/**
 * withPooledMcpClient in two steps: first what a call needs from the database (the headers with
 * their secrets, an OAuth token), then, from the function answered, the call on a kept connection.
 */
export async function pooledMcpClient(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  server: McpServer,
): Promise<<T>(fn: (client: Client, sensitive: string[]) => Promise<T>) => Promise<T>> {
  const { headers, sensitive } = await requestHeaders(ctx, em, owner, server);
  const key = connectionKey(server, headers);
  return async (fn) => {
    try {
      return await ctx.mcpConnections.use(
        key,
        () => openMcpConnection(ctx, server, headers, sensitive),
        (client) =>
          fn(client, sensitive).catch((error) => {
            throw refusedAnswer(client) ?? error;
          }),
        {
          broken: (error) => !(error instanceof McpError) && !(error instanceof McpProtocolError),
          retry: (error) => error instanceof StreamableHTTPError && error.code === 404,
        },
      );
    } catch (error) {
      throw asMcpError(error, server, sensitive);
    }
  };
}

/** The server, its configuration version and a digest of the headers (never the values). */
function connectionKey(server: McpServer, headers: Record<string, string>): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))))
    .digest('base64url');
  return `${server.id}:${server.updatedAt.getTime()}:${server.transport}:${server.endpoint}:${digest}`;
}
