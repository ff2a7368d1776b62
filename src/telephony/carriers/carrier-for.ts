import type { Config } from '../../config/env';
import type { CarrierCredentials } from '../phone-numbers/carrier-credentials';
import type { CarrierClient } from './carrier';
import { twilioCarrier } from './twilio';

/** The client of a number's carrier, with its credentials; undefined for a carrier not yet supported (Telnyx). */
export function carrierFor(
  config: Pick<Config, 'telephony' | 'outbound'>,
  credentials: CarrierCredentials,
): CarrierClient | undefined {
  if (credentials.provider === 'twilio') return twilioCarrier(config, credentials);
  return undefined;
}
