import { createHash } from 'node:crypto';
import { randomBase62 } from '../common/ids';
import type { Environment } from '../common/owner';

/** 40 base62 characters: about 238 bits of entropy. */
const SECRET_LENGTH = 40;
export const API_KEY_PATTERN = /^pk_(live|test)_[0-9A-Za-z]{32,64}$/;

/** A fast hash is right here: keys are long random strings, not passwords (as GitHub and Stripe do). */
export function hashApiKey(fullKey: string): string {
  return createHash('sha256').update(fullKey, 'utf8').digest('hex');
}

export function maskApiKey(fullKey: string): string {
  return `${fullKey.slice(0, 12)}****`;
}

export function generateApiKey(environment: Environment): {
  fullKey: string;
  keyHash: string;
  prefix: string;
} {
  const fullKey = `pk_${environment}_${randomBase62(SECRET_LENGTH)}`;
  return { fullKey, keyHash: hashApiKey(fullKey), prefix: maskApiKey(fullKey) };
}
