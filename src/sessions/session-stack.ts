import type { AppContext } from '../common/context';
import { guardedDispatcher } from '../outbound/fetch';
import { createSpeechToText, type SpeechToText } from '../outbound/transcription';
import type { PersonaManifest } from '../personas';
import { PLATFORM_PROVIDER, providerCredentials, recordProviderUse } from '../providers';

/** The voice a session speaks in when its persona names none. */
export const DEFAULT_VOICE_ID = 'espeak-en-us-aria';

/**
 * The voice id a session's speech is made with (docs/providers.md "An agent's stack"): a catalog
 * voice's id, or, for one of the account's voice providers, `<provider id>/<model>/<voice id>` (the
 * model may be empty: the provider's default), which the synthesizer resolves.
 */
export function sessionVoiceId(manifest: PersonaManifest): string {
  const voice = manifest.voice;
  if (voice?.provider?.startsWith('prov_') && voice.voice_id)
    return `${voice.provider}/${voice.model ?? ''}/${voice.voice_id}`;
  return voice?.voice_id ?? DEFAULT_VOICE_ID;
}

/** What an agent says first: the persona's first greeting, else one made of its name. */
export function greetingOf(manifest: PersonaManifest): string {
  return (
    manifest.behaviors?.greetings?.find((g) => g.trim().length > 0) ??
    `Hi, this is ${manifest.identity?.name || 'your assistant'}. How can I help?`
  );
}

/** Adds one transcription's audio to the account's usage; a failure is logged, never thrown. */
function meterTranscription(ctx: AppContext, accountId: string, provider: string) {
  return (audioMs: number) =>
    void recordProviderUse(ctx.orm.em, { accountId, provider, kind: 'transcription', audioMs }).catch(
      (error) => ctx.logger.warn({ err: error, accountId }, 'a transcription could not be metered'),
    );
}

/**
 * The session's speech-to-text (docs/providers.md): the persona's `conversation.transcriber` (one of
 * the account's transcription providers, its model and language), else the platform's (STT_*), with
 * the transcriber's model and language when it names them; every utterance metered on the account.
 * Undefined when there is none to call (no STT_* and no provider, or a provider since deleted).
 */
export async function sessionSpeechToText(
  ctx: AppContext,
  accountId: string,
  manifest: PersonaManifest,
): Promise<SpeechToText | undefined> {
  const chosen = manifest.conversation?.transcriber ?? {};
  const language = chosen.language?.split('-')[0];
  if (chosen.provider) {
    const provider = await providerCredentials(
      ctx.orm.em,
      ctx.encryptor,
      accountId,
      chosen.provider,
      'transcription',
    );
    if (!provider) {
      ctx.logger.warn({ accountId, provider: chosen.provider }, 'a persona’s transcriber is gone');
      return undefined;
    }
    return createSpeechToText({
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      model: chosen.model ?? 'whisper-1',
      timeoutMs: ctx.config.stt?.timeoutMs ?? 10_000,
      language,
      dispatcher: guardedDispatcher(ctx.config.outbound),
      onTranscribed: meterTranscription(ctx, accountId, provider.id),
    });
  }
  const platform = ctx.config.stt;
  if (!platform) return undefined;
  return createSpeechToText({
    ...platform,
    model: chosen.model ?? platform.model,
    language,
    onTranscribed: meterTranscription(ctx, accountId, PLATFORM_PROVIDER),
  });
}
