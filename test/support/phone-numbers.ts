import { randomBytes } from 'node:crypto';

let serial = Math.floor(Math.random() * 5000);

/** A valid US number (libphonenumber-js, full metadata) no other fixture of the run has. */
export const freshNumber = () => `+1415555${String(1000 + (++serial % 9000)).padStart(4, '0')}`;

/** Twilio credentials of the right shape; `authToken` is unique, so a test can look for it anywhere. */
export const twilioCredentials = () => ({
  accountSid: `AC${randomBytes(16).toString('hex')}`,
  authToken: `tok${randomBytes(14).toString('hex')}`,
});

/** Telnyx credentials of the right shape (a real Ed25519 public key's length), `apiKey` unique. */
export const telnyxCredentials = () => ({
  apiKey: `KEY${randomBytes(16).toString('hex')}`,
  publicKey: randomBytes(32).toString('base64'),
  connectionId: String(1_000_000 + Math.floor(Math.random() * 1_000_000)),
});
