import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { numberFromString } from '../http/envelope';
import { PROVIDER_KINDS } from './presets';
import { Provider } from './provider.entity';
import { PLATFORM_PROVIDER, providerUsage } from './usage';

const DAY_MS = 86_400_000;
/** What the console calls the operator's defaults (`platform` in provider_usage). */
export const PLATFORM_PROVIDER_NAME = 'Platform default';

export const ProviderUsageQuery = z.strictObject({
  days: numberFromString(z.coerce.number().int().min(1).max(90).default(30)).meta({
    description: 'How many UTC days, today included (1-90, default 30)',
  }),
});

const amount = (description: string) => z.number().min(0).meta({ description });

export const ProviderUsageReport = z
  .object({
    since: z.string().meta({ description: 'The first UTC day counted (inclusive), YYYY-MM-DD' }),
    usage: z.array(
      z.object({
        provider: z.string().meta({ description: 'The account’s provider id, or `platform`' }),
        providerName: z.string().meta({
          description: 'Its name (GET /providers); `Platform default` for `platform`',
          example: 'Our OpenAI',
        }),
        kind: z.enum(PROVIDER_KINDS),
        calls: amount('Calls made'),
        inputTokens: amount('Chat: tokens sent'),
        outputTokens: amount('Chat: tokens received'),
        characters: amount('Voices: characters spoken'),
        audioSeconds: amount('Transcription: seconds of audio sent'),
      }),
    ),
  })
  .meta({ id: 'ProviderUsageReport' });

/** The first UTC day of a window of `days` days ending today, YYYY-MM-DD. */
export const usageSince = (days: number, now = Date.now()): string =>
  new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);

/** The account's provider use since `since`, each row named by its provider. */
async function namedUsage(em: EntityManager, accountId: string, since: string) {
  const [rows, providers] = await Promise.all([
    providerUsage(em, accountId, since),
    em.find(Provider, { account: accountId }, { fields: ['id', 'name'] }),
  ]);
  const names = new Map(providers.map((p) => [p.id, p.name]));
  return rows.map((row) => ({
    ...row,
    providerName:
      row.provider === PLATFORM_PROVIDER ? PLATFORM_PROVIDER_NAME : (names.get(row.provider) ?? row.provider),
  }));
}

/** GET /usage on the console root: the account's metered provider calls (docs/providers.md "Usage"). */
export function mountProviderUsageRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  console.route({
    method: 'get',
    path: '/usage',
    summary: 'Provider usage',
    description:
      'The account’s metered provider calls of the last `days` UTC days (today included), per provider and kind: chat tokens in and out, voice characters, transcription audio seconds. `platform` is the operator’s defaults. A deleted provider keeps its rows, named by its id.',
    query: ProviderUsageQuery,
    success: { description: 'Usage per provider and kind', schema: ProviderUsageReport },
    handler: async ({ auth, query }) => {
      const since = usageSince(query.days);
      return { since, usage: await namedUsage(ctx.orm.em.fork(), auth.account.id, since) };
    },
  });
}
