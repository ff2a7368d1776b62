import type { AppContext } from '../common/context';
import { notFound } from '../http/errors';
import { accountProviders, providerCredentials } from '../providers';
import { listProviderVoices, type ProviderVoice } from './provider-voices';

/**
 * The voices of the account's voice providers (GET /voices), each provider asked at once; one that
 * cannot answer is named in `providerErrors` and the others are still listed.
 */
export async function accountProviderVoices(
  ctx: Pick<AppContext, 'orm' | 'encryptor' | 'config'>,
  accountId: string,
): Promise<{ providerVoices: ProviderVoice[]; providerErrors: { provider: string; message: string }[] }> {
  const providers = await accountProviders(ctx.orm.em, ctx.encryptor, accountId, 'voice');
  const listed = await Promise.allSettled(providers.map((p) => listProviderVoices(p, ctx.config.outbound)));
  const providerVoices: ProviderVoice[] = [];
  const providerErrors: { provider: string; message: string }[] = [];
  listed.forEach((result, i) => {
    if (result.status === 'fulfilled') providerVoices.push(...result.value);
    else providerErrors.push({ provider: providers[i]!.id, message: (result.reason as Error).message });
  });
  return { providerVoices, providerErrors };
}

/**
 * The voice id a preview speaks in: a catalog voice's, or, with `provider`, one of the account's
 * voice providers' (404 when the account has no such provider).
 */
export async function previewVoiceId(
  ctx: Pick<AppContext, 'orm' | 'encryptor'>,
  accountId: string,
  input: { voice_id: string; provider?: string; model?: string },
): Promise<string> {
  if (!input.provider) return input.voice_id;
  const found = await providerCredentials(ctx.orm.em, ctx.encryptor, accountId, input.provider, 'voice');
  if (!found) throw notFound('Voice provider');
  return `${found.id}/${input.model ?? ''}/${input.voice_id}`;
}
