import { type CallsBench, newPersona } from '../calls';
import { freshNumber } from '../phone-numbers';
import type { TelnyxDouble } from '../telnyx-double';
import { call } from '../test-app';

/** A Telnyx number on the double's account (its API key, public key and connection), on a new draft persona. */
export async function addTelnyxNumber(bench: CallsBench, double: TelnyxDouble) {
  const res = await call(bench.app.baseUrl, 'POST', '/api/v2/developers/phone-numbers', {
    token: bench.dev.testKey,
    body: {
      number: freshNumber(),
      provider: 'telnyx',
      personaId: await newPersona(bench.app, bench.dev),
      credentials: double.credentials,
    },
  });
  if (res.status !== 201) throw new Error(`number not added: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; number: string; inboundUrl: string; statusCallbackUrl: string };
}
