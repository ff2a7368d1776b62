import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../common/private-files';
import type { Logger } from '../logging/logger';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptionError';
  }
}

/** The key id a ciphertext names (its second field), or undefined when it names none. */
export function ciphertextKeyId(token: string): string | undefined {
  return token.split('.')[1] || undefined;
}

/** Key id: the first 8 hex characters of SHA-256(key), so ids need no separate naming. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function parseKey(base64: string, name = 'ENCRYPTION_KEY'): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32)
    throw new Error(`${name} must be 32 bytes, base64 encoded (got ${key.length} bytes)`);
  return key;
}

/**
 * AES-256-GCM with a key id in every ciphertext (`v1.<keyId>.<iv>.<ciphertext+tag>`, base64url), so
 * the current key can change while older ciphertexts stay readable with ENCRYPTION_PREVIOUS_KEYS.
 * The additional authenticated data binds a ciphertext to its owner and row: a value copied to
 * another row or account fails to decrypt.
 */
export class Encryptor {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(
    private readonly currentKey: Buffer,
    previousKeys: Buffer[] = [],
  ) {
    this.currentKeyId = keyIdOf(currentKey);
    this.keys.set(this.currentKeyId, currentKey);
    for (const key of previousKeys) this.keys.set(keyIdOf(key), key);
  }

  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.currentKeyId, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(token: string, aad: string): string {
    const [format, keyId, ivText, bodyText, ...rest] = token.split('.');
    if (format !== FORMAT || !keyId || !ivText || !bodyText || rest.length > 0) {
      throw new DecryptionError('malformed ciphertext');
    }
    const key = this.keys.get(keyId);
    if (!key) {
      // a key removed too early (before `npm run rotate-encryption-key` reported 0 stale), or another deployment's
      throw new DecryptionError(
        `no key with id ${keyId} is configured (it is neither ENCRYPTION_KEY nor in ENCRYPTION_PREVIOUS_KEYS)`,
      );
    }
    const iv = Buffer.from(ivText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new DecryptionError('malformed ciphertext');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new DecryptionError('ciphertext failed authentication (tampered, or bound to another row)');
    }
  }

  /**
   * A 32-byte key for another purpose (HKDF-SHA256 of the current key, `purpose` as its info): as
   * secret as the encryption key, and no use for decrypting anything.
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.currentKey, Buffer.alloc(0), purpose, 32));
  }

  /**
   * True when the ciphertext was not made with the current key and should be re-encrypted
   * (`npm run rotate-encryption-key`, src/crypto/rotation.ts).
   */
  isStale(token: string): boolean {
    return ciphertextKeyId(token) !== this.currentKeyId;
  }
}

/**
 * The configured key, or in development a generated one kept in the data dir (with a warning),
 * so secrets survive restarts without any setup.
 */
export function loadEncryptor(opts: {
  key?: string;
  previousKeys: string[];
  dataDir: string;
  isProduction: boolean;
  logger: Logger;
}): Encryptor {
  const previous = opts.previousKeys.map((k, i) => parseKey(k, `ENCRYPTION_PREVIOUS_KEYS[${i}]`));
  if (opts.key) return new Encryptor(parseKey(opts.key), previous);
  if (opts.isProduction) throw new Error('ENCRYPTION_KEY is required in production');
  const file = path.join(opts.dataDir, 'encryption.key');
  if (!fs.existsSync(file)) {
    ensurePrivateDir(opts.dataDir);
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  opts.logger.warn(
    { file },
    'ENCRYPTION_KEY is not set: using a development key kept in the data dir. Set ENCRYPTION_KEY in production.',
  );
  return new Encryptor(parseKey(fs.readFileSync(file, 'utf8').trim()), previous);
}
