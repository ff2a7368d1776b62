import type { Config } from '../../config/env';
import type { CarrierCredentials } from '../phone-numbers/carrier-credentials';
import type { CarrierClient } from './carrier';
import { telnyxCarrier } from './telnyx';
import { twilioCarrier } from './twilio';

/** The client of a number's carrier (its `provider`), with its credentials. */
export function carrierFor(
  config: Pick<Config, 'telephony' | 'outbound'>,
  credentials: CarrierCredentials,
): CarrierClient | undefined {
  switch (credentials.provider) {
    case 'twilio':
      return twilioCarrier(config, credentials);
    case 'telnyx':
      return telnyxCarrier(config, credentials);
    default:
      return undefined;
  }
}
