import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CoreContext } from '../app/context';
import type { PlatformAuth } from '../auth/platform-auth';
import { accessTokenFor } from '../oauth/oauth.service';
import { guardedFetch } from '../outbound/fetch';
import { OutboundError } from '../outbound/http';
import { resolveSecrets } from '../secrets/secrets.service';
import { renderSecretHeaders, scrubSecrets, secretNamesIn } from '../secrets/templates';
import { type McpServer, mcpHeadersAad } from './mcp-server.entity';

type Owner = Pick<PlatformAuth, 'accountId' | 'environment'>;

export const MCP_TIMEOUT_MS = 15_000;
const CLIENT_INFO = { name: 'voice-agent-platform', version: '1.0.0' };

/** A failure to reach or talk to an MCP server, with a message fit for the developer. */
export class McpError extends Error {
  /** `connect`: the server was never reached or refused the handshake, so nothing ran there. */
  constructor(
    message: string,
    readonly phase: 'connect' | 'call' = 'call',
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

/** A clear message for a failed MCP exchange; secret values are scrubbed from it. */
export function describeMcpFailure(error: unknown, endpoint: string, sensitive: string[] = []): string {
  let message: string;
  const cause = rootCause(error);
  if (error instanceof OutboundError && error.kind === 'blocked') message = `Refused: ${error.message}`;
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

/**
 * Connects to a server (initialize), runs `fn`, and closes. Streamable HTTP for `http`, the older
 * HTTP+SSE transport for `sse`; every request goes through the SSRF-guarded fetch.
 */
export async function withMcpClient<T>(
  ctx: CoreContext,
  em: EntityManager,
  owner: Owner,
  server: McpServer,
  fn: (client: Client, sensitive: string[]) => Promise<T>,
): Promise<T> {
  const { headers, sensitive } = await requestHeaders(ctx, em, owner, server);
  const fetch = guardedFetch(ctx.config.outbound);
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
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpError(describeMcpFailure(error, server.endpoint, sensitive), 'connect');
  }
  try {
    return await fn(client, sensitive);
  } catch (error) {
    if (error instanceof McpError) throw error;
    throw new McpError(describeMcpFailure(error, server.endpoint, sensitive));
  } finally {
    await client.close().catch(() => undefined);
  }
}
