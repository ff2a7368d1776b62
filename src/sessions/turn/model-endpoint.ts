import type { Dispatcher } from 'undici';
import type { AppContext } from '../../common/context';
import { guardedDispatcher } from '../../outbound/fetch';
import type { ModelUsage } from '../../outbound/model-stream';
import { PLATFORM_PROVIDER, providerCredentials, recordProviderUse } from '../../providers';
import type { ChatMessage } from '../agent-context';

/** Where a turn's model is: the account's chat provider, or the platform's (LLM_*). */
export interface ModelEndpoint {
  /** The account's provider id, or PLATFORM_PROVIDER. */
  provider: string;
  url: string;
  headers: Record<string, string>;
  /** An account's provider is reached through the SSRF-guarded pool; the operator's is trusted. */
  dispatcher?: Dispatcher;
}

/**
 * The endpoint of the persona's `conversation.model.provider` (docs/providers.md), or the platform's
 * default when it names none; a string saying why when there is none to call.
 */
export async function modelEndpoint(
  ctx: AppContext,
  accountId: string | undefined,
  providerId: string | null,
): Promise<ModelEndpoint | string> {
  if (providerId) {
    const provider = accountId
      ? await providerCredentials(ctx.orm.em, ctx.encryptor, accountId, providerId, 'chat')
      : undefined;
    if (!provider)
      return `The persona's model provider ${providerId} is not one of the account's chat providers`;
    return {
      provider: provider.id,
      url: `${provider.baseUrl.replace(/\/+$/, '')}/chat/completions`,
      headers: { Authorization: `Bearer ${provider.apiKey}` },
      dispatcher: guardedDispatcher(ctx.config.outbound),
    };
  }
  const { baseUrl, apiKey } = ctx.config.llm;
  if (!baseUrl) return 'No LLM provider is configured';
  return {
    provider: PLATFORM_PROVIDER,
    url: `${baseUrl.replace(/\/$/, '')}/chat/completions`,
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  };
}

/** A rough count of tokens for a provider that reports none: about four characters each. */
const roughTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * Meters one model call on its account (docs/providers.md "Usage"): the provider's own count of
 * tokens, or a rough one from the characters when it gave none (a stream cut short). Never throws.
 */
export async function meterModelCall(
  ctx: AppContext,
  call: {
    accountId?: string;
    provider: string;
    messages: ChatMessage[];
    content: string;
    usage?: ModelUsage;
  },
): Promise<void> {
  if (!call.accountId) return;
  const prompt = call.messages.map((m) => ('content' in m && m.content) || '').join('\n');
  try {
    await recordProviderUse(ctx.orm.em, {
      accountId: call.accountId,
      provider: call.provider,
      kind: 'chat',
      inputTokens: call.usage?.inputTokens ?? roughTokens(prompt),
      outputTokens: call.usage?.outputTokens ?? roughTokens(call.content),
    });
  } catch (error) {
    ctx.logger.warn({ err: error, accountId: call.accountId }, 'a model call could not be metered');
  }
}
