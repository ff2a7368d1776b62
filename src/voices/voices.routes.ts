import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ApiError } from '../http/errors';
import { accountProviderVoices, previewVoiceId } from './account-voices';
import { ListVoicesQuery, PreviewBody, PreviewEnvelope, VoiceList } from './voices.schemas';
import { listVoices, PREVIEW_RETRY_AFTER_SECONDS, previewVoice } from './voices.service';

/**
 * GET /voices and POST /voices/preview on the console root. Mounting starts the speech threads and
 * their warm-up, except under NODE_ENV=test, where they start with the first preview.
 */
export function mountVoiceRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  if (ctx.config.env !== 'test') ctx.speech.start();
  console
    .route({
      method: 'get',
      path: '/voices',
      summary: 'List voices',
      description:
        'Every filter is exact: `gender`, `category`, `language` (a BCP 47 tag, case-insensitive) and `provider`; they apply to the catalog, which is the same for every account. `providerVoices` are those of the account’s voice providers (GET /providers?kind=voice), asked each time.',
      query: ListVoicesQuery,
      success: { description: 'The matching voices', schema: VoiceList },
      handler: async ({ auth, query }) => ({
        voices: listVoices(query, ctx.config),
        ...(await accountProviderVoices(ctx, auth.account.id)),
      }),
    })
    .route({
      method: 'post',
      path: '/voices/preview',
      summary: 'Speak a text in a voice',
      description:
        'Synthesizes `text` (1-500 characters) and answers the audio as a `data:audio/mpeg;base64,…` URL with its duration in seconds. Identical previews are cached. Unknown `voice_id`: 404. Every speech thread busy and the queue full: 503 with `Retry-After`.',
      body: PreviewBody,
      success: { description: 'The preview', schema: PreviewEnvelope },
      handler: async ({ auth, body, res }) => {
        try {
          const voiceId = await previewVoiceId(ctx, auth.account.id, body);
          return { preview: await previewVoice(ctx, { voice_id: voiceId, text: body.text }) };
        } catch (error) {
          if (error instanceof ApiError && error.status === 503) {
            res.setHeader('Retry-After', String(PREVIEW_RETRY_AFTER_SECONDS));
          }
          throw error;
        }
      },
    });
}
