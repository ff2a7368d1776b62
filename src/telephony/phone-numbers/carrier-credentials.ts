import { z } from 'zod';
import type { Encryptor } from '../../crypto/encryption';
import { validationFailed } from '../../http/errors';
import { describeIssuesUnder } from '../../http/validation';
import type { Carrier, PhoneNumber } from './phone-number.entity';
import { phoneNumberCredentialsAad } from './phone-number.entity';

const printable = (what: string) =>
  z
    .string()
    .max(256)
    .regex(/^[\x21-\x7e]+$/, `must be the ${what} as the carrier shows it (no spaces)`);

/** A Twilio account's credentials: its Account SID and auth token (Twilio Console, "Account Info"). */
export const TwilioCredentials = z
  .strictObject({
    accountSid: z
      .string()
      .regex(/^AC[0-9a-f]{32}$/, 'must be a Twilio Account SID: AC and 32 lowercase hex digits')
      .meta({ example: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }),
    authToken: printable('auth token').meta({
      description: 'Signs the webhooks Twilio sends and authenticates calls placed through Twilio',
      writeOnly: true,
    }),
  })
  .meta({ id: 'TwilioCredentials' });

/** Ed25519 public keys are 32 bytes; Telnyx's portal shows them base64-encoded. */
const ed25519PublicKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be the base64 Ed25519 public key of the Telnyx account (32 bytes)')
  .meta({ description: 'Verifies the webhooks Telnyx signs (`telnyx-signature-ed25519`)' });

/** A Telnyx account's credentials: an API key, the webhook signing public key and the Call Control connection. */
export const TelnyxCredentials = z
  .strictObject({
    apiKey: printable('API key').meta({ example: 'KEY0123…', writeOnly: true }),
    publicKey: ed25519PublicKey,
    connectionId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a Telnyx Call Control connection id')
      .meta({ description: 'The Call Control application (connection) the number is assigned to' }),
  })
  .meta({ id: 'TelnyxCredentials' });

export type TwilioCredentialsValue = z.infer<typeof TwilioCredentials>;
export type TelnyxCredentialsValue = z.infer<typeof TelnyxCredentials>;
export type CarrierCredentials =
  | ({ provider: 'twilio' } & TwilioCredentialsValue)
  | ({ provider: 'telnyx' } & TelnyxCredentialsValue);

export const CREDENTIAL_SCHEMAS = { twilio: TwilioCredentials, telnyx: TelnyxCredentials } as const;

/**
 * Credentials sent without their number's provider (a PUT), checked against it: a 400 naming each
 * field (`credentials.authToken: …`).
 */
export function parseCredentials(provider: Carrier, value: unknown): Record<string, string> {
  const result = CREDENTIAL_SCHEMAS[provider].safeParse(value);
  if (result.success) return result.data;
  const lines = describeIssuesUnder(result.error.issues, 'credentials');
  throw validationFailed(lines, `Invalid request body: ${lines[0]}`);
}

/** Encrypts a number's credentials for its row (which must have its id, account and environment). */
export function sealCredentials(
  encryptor: Encryptor,
  number: Pick<PhoneNumber, 'id' | 'account' | 'environment'>,
  credentials: Record<string, string>,
): string {
  return encryptor.encrypt(JSON.stringify(credentials), phoneNumberCredentialsAad(number));
}

/**
 * A number's carrier credentials, decrypted: for signing checks and the carrier's API only. Never
 * log them, return them or put them in an event.
 */
export function openCredentials(
  encryptor: Encryptor,
  number: Pick<PhoneNumber, 'id' | 'account' | 'environment' | 'provider' | 'credentialsCiphertext'>,
): CarrierCredentials {
  const plain = JSON.parse(
    encryptor.decrypt(number.credentialsCiphertext, phoneNumberCredentialsAad(number)),
  );
  return { provider: number.provider, ...plain } as CarrierCredentials;
}
