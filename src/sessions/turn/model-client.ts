import type { AppContext } from '../../common/context';
import { type ModelUsage, streamChatCompletion } from '../../outbound/model-stream';
import type { AgentTool, ChatMessage, ChatToolCall, ConversationSettings } from '../agent-context';
import { meterModelCall, modelEndpoint } from './model-endpoint';

/** A model call's whole time: from the request to its last token. */
const MODEL_TIMEOUT_MS = 30_000;

/** What one streamed chat completion came to: a failure is an answer too (spoken as a fallback). */
export type ModelAnswer =
  | { ok: true; content: string | null; toolCalls: ChatToolCall[] }
  | { ok: false; error: string; content: string | null; interrupted: boolean };

/**
 * Asks the model (OpenAI-compatible chat completions, `stream: true`) with the tools offered as
 * functions. Each piece of text goes to `onText` as it arrives; the answer is whole once the stream
 * ends. Aborting `signal` (the caller interrupted) closes the connection, so the provider stops
 * generating, and answers what arrived with `interrupted`. Never throws.
 */
export async function askModel(
  ctx: AppContext,
  input: {
    messages: ChatMessage[];
    tools: AgentTool[];
    /** The persona's model settings (`conversation.model`, its name defaulting to LLM_MODEL). */
    model: ConversationSettings['model'];
    /** The account the call is for: its chat provider, when the model names one, and its usage. */
    accountId?: string;
    signal: AbortSignal;
    onText(text: string): void;
  },
): Promise<ModelAnswer> {
  const { name: model, temperature, maxTokens, provider } = input.model;
  let content = '';
  let usage: ModelUsage | undefined;
  const fail = (error: string): ModelAnswer => ({
    ok: false,
    error,
    content: content || null,
    interrupted: input.signal.aborted,
  });
  const endpoint = await modelEndpoint(ctx, input.accountId, provider);
  if (typeof endpoint === 'string') return fail(endpoint);
  try {
    const stream = streamChatCompletion({
      url: endpoint.url,
      headers: endpoint.headers,
      body: {
        model,
        messages: input.messages,
        ...(temperature === null ? {} : { temperature }),
        ...(maxTokens === null ? {} : { max_tokens: maxTokens }),
        ...toolsOf(input.tools),
        stream_options: { include_usage: true },
      },
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(MODEL_TIMEOUT_MS)]),
      dispatcher: endpoint.dispatcher,
    });
    for await (const event of stream) {
      if (event.type === 'delta') {
        content += event.text;
        input.onText(event.text);
        continue;
      }
      usage = event.usage;
      if (event.content === null && event.toolCalls.length === 0)
        return fail('The LLM provider returned an empty message');
      return { ok: true, content: event.content, toolCalls: event.toolCalls };
    }
    return fail('The LLM provider ended its stream without an answer');
  } catch (error) {
    if (input.signal.aborted) return fail('interrupted');
    const reason = error instanceof Error ? error.message : String(error);
    return fail(
      (error as Error)?.name === 'ModelStreamError'
        ? reason
        : `LLM provider unreachable or malformed answer: ${reason}`,
    );
  } finally {
    const { accountId, messages } = input;
    await meterModelCall(ctx, { accountId, provider: endpoint.provider, messages, content, usage });
  }
}

function toolsOf(tools: AgentTool[]) {
  if (!tools.length) return {};
  return {
    tools: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    })),
    tool_choice: 'auto',
  };
}
