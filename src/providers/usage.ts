import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProviderKind } from './presets';

/** The provider column of the platform's own defaults (the operator's LLM_*, STT_* and voices). */
export const PLATFORM_PROVIDER = 'platform';

/** One provider call's use: tokens (chat), characters (voices), audio (transcription). */
export interface ProviderUse {
  accountId: string;
  /** The account's provider id, or PLATFORM_PROVIDER. */
  provider: string;
  kind: ProviderKind;
  inputTokens?: number;
  outputTokens?: number;
  characters?: number;
  audioMs?: number;
}

const RECORD_SQL = `insert into provider_usage
    (account_id, day, provider, kind, calls, input_tokens, output_tokens, characters, audio_ms)
  values (?, (now() at time zone 'utc')::date, ?, ?, 1, ?, ?, ?, ?)
  on conflict (account_id, day, provider, kind) do update set
    calls = provider_usage.calls + 1,
    input_tokens = provider_usage.input_tokens + excluded.input_tokens,
    output_tokens = provider_usage.output_tokens + excluded.output_tokens,
    characters = provider_usage.characters + excluded.characters,
    audio_ms = provider_usage.audio_ms + excluded.audio_ms`;

/** Adds one call's use to its account's row of the day (one statement, safe from any process). */
export async function recordProviderUse(em: EntityManager, use: ProviderUse): Promise<void> {
  const whole = (n: number | undefined) => Math.max(0, Math.round(n ?? 0));
  await em
    .getConnection()
    .execute(RECORD_SQL, [
      use.accountId,
      use.provider,
      use.kind,
      whole(use.inputTokens),
      whole(use.outputTokens),
      whole(use.characters),
      whole(use.audioMs),
    ]);
}

/** An account's use since `since` (a UTC day, inclusive), per provider and kind. */
export async function providerUsage(em: EntityManager, accountId: string, since: string) {
  const rows: {
    provider: string;
    kind: ProviderKind;
    calls: string;
    input_tokens: string;
    output_tokens: string;
    characters: string;
    audio_ms: string;
  }[] = await em.getConnection().execute(
    `select provider, kind, sum(calls) as calls, sum(input_tokens) as input_tokens,
        sum(output_tokens) as output_tokens, sum(characters) as characters, sum(audio_ms) as audio_ms
       from provider_usage where account_id = ? and day >= ?::date
      group by provider, kind order by kind, provider`,
    [accountId, since],
  );
  return rows.map((r) => ({
    provider: r.provider,
    kind: r.kind,
    calls: Number(r.calls),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    characters: Number(r.characters),
    audioSeconds: Number(r.audio_ms) / 1000,
  }));
}
