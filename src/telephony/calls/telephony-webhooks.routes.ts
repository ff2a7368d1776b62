import express, { type Router } from 'express';
import type { AppContext } from '../../common/context';
import { telnyxWebhooks } from './telnyx-webhooks.routes';
import { twilioWebhooks } from './twilio-callbacks.routes';

/** Where the carriers' webhooks arrive, without an API key: each is signed by the number's carrier. */
export const TELEPHONY_ROOT = '/api/v2/telephony';

/**
 * The carriers' webhooks (docs/telephony.md), mounted at TELEPHONY_ROOT before the JSON-only body
 * rule: each carrier's bodies are read raw (Twilio's forms, Telnyx's JSON) for their signatures,
 * which authenticate them in place of an API key.
 */
export function telephonyWebhooks(ctx: AppContext): Router {
  const router = express.Router();
  router.use('/twilio', twilioWebhooks(ctx));
  router.use('/telnyx', telnyxWebhooks(ctx));
  return router;
}
