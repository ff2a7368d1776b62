import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as McpProtocolError } from '@modelcontextprotocol/sdk/types.js';
import type { CoreContext } from '../../common/context';
import type { PooledConnection } from '../../common/mcp-connections';
import { describeMcpFailure, isAnswerTooLarge, MCP_TIMEOUT_MS, mcpFetch, refusedAnswer } from '../../mcp';
import { ANSWER_LIMITS } from '../../outbound/answer-limits';
import { mcpErrorText, mcpResultValue } from '../../tools';

/**
 * MCP for marketplace tools: the publisher's public Streamable HTTP endpoint (no platform secrets or
 * OAuth), every request through the SSRF-guarded fetch. Runs share one kept session per endpoint in
 * the process's MCP pool; the review's check always opens a fresh one.
 */

const CLIENT_INFO = { name: 'voice-agent-platform-marketplace', version: '1.0.0' };

class ConnectFailed extends Error {
  constructor(
    message: string,
    readonly tooLarge: boolean,
  ) {
    super(message);
  }
}

async function open(ctx: Pick<CoreContext, 'config'>, endpoint: string): Promise<PooledConnection<Client>> {
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    fetch: mcpFetch(ctx.config.outbound, client, ANSWER_LIMITS.marketplaceTool),
  });
  try {
    await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    const failure = refusedAnswer(client) ?? error;
    throw new ConnectFailed(describeMcpFailure(failure, endpoint), isAnswerTooLarge(failure));
  }
  return {
    client,
    close: async () => {
      if (transport.sessionId) await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** The review's MCP check: connect, `tools/list`, and whether it lists `toolName`. Never throws. */
export async function probeMcpTool(
  ctx: Pick<CoreContext, 'config'>,
  endpoint: string,
  toolName: string,
): Promise<{ passed: boolean; note: string }> {
  const started = performance.now();
  let connection: PooledConnection<Client>;
  try {
    connection = await open(ctx, endpoint);
  } catch (error) {
    return { passed: false, note: `MCP check failed: could not connect: ${(error as Error).message}` };
  }
  try {
    const server = connection.client.getServerVersion();
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await connection.client.listTools(cursor ? { cursor } : undefined, {
        timeout: MCP_TIMEOUT_MS,
      });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor && names.length < 10_000);
    const ms = Math.round(performance.now() - started);
    const serverName = server ? ` (${server.name} ${server.version})` : '';
    if (names.includes(toolName)) {
      return {
        passed: true,
        note: `MCP check passed: connected to ${endpoint}${serverName} in ${ms} ms; tools/list lists "${toolName}"`,
      };
    }
    const listed = names.length ? names.slice(0, 20).join(', ') : 'no tools';
    return {
      passed: false,
      note: `MCP check failed: tools/list of ${endpoint}${serverName} does not list "${toolName}" (it lists ${listed})`,
    };
  } catch (error) {
    return { passed: false, note: `MCP check failed: ${describeMcpFailure(error, endpoint)}` };
  } finally {
    await connection.close();
  }
}

export type McpRunOutcome =
  | { success: true; result: unknown }
  | {
      success: false;
      error: string;
      errorCode: 'TOOL_ERROR' | 'UNREACHABLE' | 'TIMEOUT' | 'PROTOCOL_ERROR' | 'RESPONSE_TOO_LARGE';
    };

/** One `tools/call` on a marketplace item's MCP endpoint, on its kept session; failures are outcomes with an error code. */
export async function callItemMcpTool(
  ctx: Pick<CoreContext, 'config' | 'mcpConnections'>,
  endpoint: string,
  toolName: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<McpRunOutcome> {
  try {
    return await ctx.mcpConnections.use(
      `marketplace:${endpoint}`,
      () => open(ctx, endpoint),
      async (client): Promise<McpRunOutcome> => {
        const result = await client
          .callTool({ name: toolName, arguments: args }, undefined, { timeout: timeoutMs })
          .catch((error) => {
            throw refusedAnswer(client) ?? error;
          });
        if (result.isError)
          return { success: false, error: mcpErrorText(result.content), errorCode: 'TOOL_ERROR' };
        return { success: true, result: mcpResultValue(result as { content?: unknown }) };
      },
      {
        broken: (error) => !(error instanceof McpProtocolError) && !(error instanceof ConnectFailed),
        retry: (error) => error instanceof StreamableHTTPError && error.code === 404,
      },
    );
  } catch (error) {
    if (error instanceof ConnectFailed) {
      const errorCode = error.tooLarge ? 'RESPONSE_TOO_LARGE' : 'UNREACHABLE';
      return { success: false, error: error.message, errorCode };
    }
    const message = describeMcpFailure(error, endpoint);
    if (isAnswerTooLarge(error)) return { success: false, error: message, errorCode: 'RESPONSE_TOO_LARGE' };
    const timedOut = error instanceof McpProtocolError && /timed out|timeout/i.test(error.message);
    return { success: false, error: message, errorCode: timedOut ? 'TIMEOUT' : 'PROTOCOL_ERROR' };
  }
}
