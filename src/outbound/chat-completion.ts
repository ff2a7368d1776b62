import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/env';
import { ANSWER_LIMITS, OutboundError } from './answer-limits';
import { postJson } from './provider';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** Strips the provider key from a message that might quote it. */
const scrub = (text: string, key?: string) => (key ? text.split(key).join('***') : text);

/**
 * One chat completion at temperature 0 from an activity (the agent tests' caller and judge, post-call
 * analysis), answering the reply's text. Failures are Temporal's: no provider, a refusal (4xx) or an
 * answer over ANSWER_LIMITS.modelCompletion are final; an unreachable provider, a 429 or a 5xx are
 * retried by the activity's policy. The provider key never appears in a message.
 */
export async function completeChatInActivity(
  llm: Config['llm'],
  messages: ChatMessage[],
  opts: { json: boolean },
): Promise<string> {
  const { baseUrl, apiKey, model } = llm;
  if (!baseUrl) throw ApplicationFailure.nonRetryable('No LLM provider is configured (LLM_BASE_URL)');
  let response: Awaited<ReturnType<typeof postJson>>;
  try {
    response = await postJson(
      `${baseUrl.replace(/\/$/, '')}/chat/completions`,
      apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
      { model, temperature: 0, messages, ...(opts.json ? { response_format: { type: 'json_object' } } : {}) },
      ANSWER_LIMITS.modelCompletion,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof OutboundError && error.kind === 'too_large')
      throw ApplicationFailure.nonRetryable(`The LLM provider's answer was too large: ${reason}`);
    throw ApplicationFailure.retryable(scrub(`LLM provider unreachable: ${reason}`, apiKey));
  }
  if (!response.ok) {
    const message = scrub(`LLM provider answered ${response.status}: ${response.text.slice(0, 300)}`, apiKey);
    if (response.status === 429 || response.status >= 500) throw ApplicationFailure.retryable(message);
    throw ApplicationFailure.nonRetryable(message);
  }
  const completion = JSON.parse(response.text) as { choices?: { message?: { content?: unknown } }[] };
  const content = completion.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : '';
}
