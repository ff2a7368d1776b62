import type { CoreContext } from '../common/context';
import { newId } from '../common/ids';
import type { Owner } from '../common/owner';
import { validationFailed } from '../http/errors';
import { McpError, mcpServerForCall, pooledMcpClient } from '../mcp';
import { accessTokenFor } from '../oauth';
import { ANSWER_LIMITS } from '../outbound/answer-limits';
import { OutboundError, sendOutbound } from '../outbound/http';
import { postJson } from '../outbound/provider';
import { renderSecretHeaders, resolveSecrets, scrubSecrets, secretNamesIn } from '../secrets';
import { argumentProblems } from './arguments';
import type { Tool } from './tool.entity';
import { runToolWithEvents, type ToolCall } from './tool-events';
import type { Outcome, ToolExecutionResult } from './tool-types';
import type { ToolParameters } from './tools.schemas';

export type { Outcome, ToolExecutionResult } from './tool-types';

const MCP_CALL_TIMEOUT_MS = 30_000;

/** A call whose answer passed its cap: a failure, never the part that was read. */
const answerTooLarge = (who: string, maxBytes: number): Outcome => ({
  success: false,
  error: `Response too large: ${who} answered more than ${maxBytes} bytes`,
  errorCode: 'RESPONSE_TOO_LARGE',
});

/** Removes secret values from anything headed for a response or an event. */
function scrubValue<T>(value: T, sensitive: string[]): T {
  if (sensitive.length === 0 || value === undefined) return value;
  const text = JSON.stringify(value);
  const clean = scrubSecrets(text, sensitive);
  return clean === text ? value : (JSON.parse(clean) as T);
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function runWebhook(
  ctx: CoreContext,
  owner: Owner,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<() => Promise<Outcome>> {
  const config = tool.config as {
    url: string;
    method: string;
    headers?: Record<string, string>;
    timeoutMs?: number;
    oauthTokenId?: string;
  };
  const em = ctx.orm.em.fork();
  const secrets = await resolveSecrets(
    em,
    ctx.encryptor,
    owner,
    secretNamesIn(Object.values(config.headers ?? {})),
  );
  const sensitive = [...secrets.values()];
  const headers = renderSecretHeaders(config.headers, secrets);
  if (config.oauthTokenId) {
    const token = await accessTokenFor(ctx, owner, config.oauthTokenId); // refreshed first when expired
    headers.Authorization = `Bearer ${token}`;
    sensitive.push(token);
  }
  return async () => {
    const url = new URL(config.url);
    let body: string | undefined;
    if (config.method === 'GET' || config.method === 'DELETE') {
      for (const [k, v] of Object.entries(args))
        url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    } else {
      body = JSON.stringify(args);
    }
    try {
      const response = await sendOutbound({
        url: url.toString(),
        method: config.method,
        headers: {
          'User-Agent': 'VoicePlatform-Tools/1.0',
          Accept: 'application/json',
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
        body,
        limits: {
          ...ANSWER_LIMITS.webhookTool,
          timeoutMs: config.timeoutMs ?? ANSWER_LIMITS.webhookTool.timeoutMs,
        },
        policy: ctx.config.outbound,
      });
      const text = scrubSecrets(response.body, sensitive);
      if (response.status >= 200 && response.status < 300) {
        return { success: true, result: parseBody(text), statusCode: response.status };
      }
      return {
        success: false,
        error: `HTTP ${response.status}: ${text.slice(0, 500)}`,
        statusCode: response.status,
      };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'too_large') return answerTooLarge('the tool', ANSWER_LIMITS.webhookTool.maxBytes);
      const prefix =
        error.kind === 'blocked' ? 'Refused' : error.kind === 'timeout' ? 'Timed out' : 'Request failed';
      return { success: false, error: scrubSecrets(`${prefix}: ${error.message}`, sensitive) };
    }
  };
}

/**
 * An MCP tool result (docs/api-contract.md "Tool results"): structuredContent, else one text item (JSON when
 * it parses), else the content.
 */
export function mcpResultValue(result: { structuredContent?: unknown; content?: unknown }): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 1 && content[0]?.type === 'text') return parseBody(content[0].text as string);
  return content;
}

/** The text of an MCP tool's error result (`isError`), or a generic one. */
export function mcpErrorText(content: unknown): string {
  const items = Array.isArray(content) ? content : [];
  const text = items
    .filter((c) => c?.type === 'text')
    .map((c) => c.text as string)
    .join('\n');
  return text || 'The tool reported an error';
}

/**
 * Calls one tool of one of the owner's MCP servers (a voice workflow's `mcp_call` node); see
 * prepareMcpCall for its outcomes.
 */
export async function callMcpTool(
  ctx: CoreContext,
  owner: Owner,
  call: { serverId: string; toolName: string; arguments: Record<string, unknown>; timeoutMs?: number },
): Promise<Outcome> {
  return (await prepareMcpCall(ctx, owner, call))();
}

/**
 * Calls one tool of one of the owner's MCP servers, in two steps: the reads (the server row, its
 * headers' secrets and OAuth token), then, from the function answered, the call. A tool error
 * (`isError`), a failure to talk to the server and a server that no longer exists are outcomes, not
 * exceptions; `retryable` marks failures where the tool never ran.
 */
export async function prepareMcpCall(
  ctx: CoreContext,
  owner: Owner,
  call: { serverId: string; toolName: string; arguments: Record<string, unknown>; timeoutMs?: number },
): Promise<() => Promise<Outcome>> {
  const em = ctx.orm.em.fork();
  const server = await mcpServerForCall(em.getConnection().getKnex(), owner, call.serverId);
  if (!server) {
    return async () => ({ success: false, error: `MCP server ${call.serverId} no longer exists` });
  }
  const withClient = await pooledMcpClient(ctx, em, owner, server);
  return async () => {
    try {
      return await withClient(async (client, sensitive): Promise<Outcome> => {
        const result = await client.callTool({ name: call.toolName, arguments: call.arguments }, undefined, {
          timeout: call.timeoutMs ?? MCP_CALL_TIMEOUT_MS,
        });
        if (result.isError)
          return { success: false, error: scrubSecrets(mcpErrorText(result.content), sensitive) };
        return {
          success: true,
          result: scrubValue(mcpResultValue(result as { content?: unknown }), sensitive),
        };
      });
    } catch (error) {
      if (error instanceof McpError) {
        if (error.tooLarge) return { success: false, error: error.message, errorCode: 'RESPONSE_TOO_LARGE' };
        return { success: false, error: error.message, retryable: error.phase === 'connect' };
      }
      throw error;
    }
  };
}

async function runMcp(
  ctx: CoreContext,
  owner: Owner,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<ToolCall> {
  const config = tool.config as { serverId: string; toolName: string };
  return { prepare: () => prepareMcpCall(ctx, owner, { ...config, arguments: args }) };
}

/**
 * One chat completion from the OpenAI-compatible provider (LLM_BASE_URL). Failures are outcomes;
 * `retryable` marks the provider being unreachable, rate limited (429) or failing (5xx).
 */
export async function completePrompt(
  ctx: CoreContext,
  request: { content: string; model?: string; maxTokens?: number; timeoutMs?: number },
): Promise<Outcome> {
  const { baseUrl, apiKey, model } = ctx.config.llm;
  if (!baseUrl)
    return { success: false, error: 'No LLM provider is configured: set LLM_BASE_URL (and LLM_API_KEY)' };
  try {
    const response = await postJson(
      `${baseUrl.replace(/\/$/, '')}/chat/completions`,
      apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      {
        model: request.model ?? model,
        messages: [{ role: 'user', content: request.content }],
        ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      },
      {
        ...ANSWER_LIMITS.modelCompletion,
        timeoutMs: request.timeoutMs ?? ANSWER_LIMITS.modelCompletion.timeoutMs,
      },
    );
    const { text } = response;
    const sensitive = apiKey ? [apiKey] : [];
    if (!response.ok)
      return {
        success: false,
        error: scrubSecrets(`LLM provider answered ${response.status}: ${text.slice(0, 300)}`, sensitive),
        retryable: response.status === 429 || response.status >= 500,
      };
    const completion = JSON.parse(text) as { choices?: { message?: { content?: string } }[] };
    const answer = completion.choices?.[0]?.message?.content;
    if (typeof answer !== 'string')
      return { success: false, error: 'The LLM provider returned no completion' };
    return { success: true, result: answer };
  } catch (error) {
    if (error instanceof OutboundError && error.kind === 'too_large')
      return answerTooLarge('the LLM provider', ANSWER_LIMITS.modelCompletion.maxBytes);
    return {
      success: false,
      error: `LLM provider unreachable: ${error instanceof Error ? error.message : String(error)}`,
      retryable: true,
    };
  }
}

async function runPrompt(
  ctx: CoreContext,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<() => Promise<Outcome>> {
  const config = tool.config as { prompt: string; model?: string; maxTokens?: number };
  const input = typeof args.input === 'string' ? args.input : JSON.stringify(args);
  const content = config.prompt.split('{{input}}').join(input);
  return () => completePrompt(ctx, { content, model: config.model, maxTokens: config.maxTokens });
}

/**
 * Executes a tool for real: arguments checked against `parameters` (400 naming the field), secrets
 * resolved (400 for an unknown one), then `tool.called`, the call, and `tool.completed` or
 * `tool.failed` (with `error` and `duration` in ms). Secret values never reach the answer or events.
 */
export async function executeTool(
  ctx: CoreContext,
  owner: Owner,
  tool: Tool,
  args: Record<string, unknown>,
  sessionId: string = newId('sess'),
): Promise<ToolExecutionResult> {
  const problems = argumentProblems(tool.parameters as ToolParameters, args);
  if (problems.length) throw validationFailed(problems, 'The arguments do not match the tool parameters');
  const run =
    tool.type === 'webhook'
      ? await runWebhook(ctx, owner, tool, args)
      : tool.type === 'mcp'
        ? await runMcp(ctx, owner, tool, args)
        : await runPrompt(ctx, tool, args);
  return runToolWithEvents(ctx, owner, { sessionId, toolId: tool.id, toolName: tool.name }, args, run);
}
