import { randomBytes } from 'node:crypto';
import { DecryptionError, Encryptor, keyIdOf, parseKey } from '../src/crypto/encryption';

describe('encryption at rest (AES-256-GCM, key ids, bound to owner and row)', () => {
  const key = randomBytes(32);
  const enc = new Encryptor(key);

  it('round-trips, with a fresh IV every time and the key id in the ciphertext', () => {
    const a = enc.encrypt('hello wörld', 'secret:sec_1:pub_1');
    const b = enc.encrypt('hello wörld', 'secret:sec_1:pub_1');
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).toBe(keyIdOf(key));
    expect(enc.decrypt(a, 'secret:sec_1:pub_1')).toBe('hello wörld');
  });

  it('detects tampering with the ciphertext, the IV or the tag', () => {
    const token = enc.encrypt('value', 'aad');
    const [v, kid, iv, body] = token.split('.');
    const flip = (s: string, i: number) => {
      const buf = Buffer.from(s, 'base64url');
      buf[i] ^= 1;
      return buf.toString('base64url');
    };
    const bodyLength = Buffer.from(body, 'base64url').length;
    for (const bad of [
      [v, kid, iv, flip(body, 0)].join('.'),
      [v, kid, iv, flip(body, bodyLength - 1)].join('.'),
      [v, kid, flip(iv, 0), body].join('.'),
    ]) {
      expect(() => enc.decrypt(bad, 'aad')).toThrow(DecryptionError);
    }
  });

  it('refuses a ciphertext moved to another row or owner (additional data)', () => {
    const token = enc.encrypt('value', 'secret:sec_1:pub_A');
    expect(() => enc.decrypt(token, 'secret:sec_1:pub_B')).toThrow(/tampered, or bound to another row/);
  });

  it('rotates: the new key encrypts, previous keys still decrypt, unknown key ids are named', () => {
    const next = randomBytes(32);
    const rotated = new Encryptor(next, [key]);
    const old = enc.encrypt('old', 'aad');
    expect(rotated.decrypt(old, 'aad')).toBe('old');
    expect(rotated.isStale(old)).toBe(true);
    const fresh = rotated.encrypt('new', 'aad');
    expect(rotated.isStale(fresh)).toBe(false);
    expect(() => enc.decrypt(fresh, 'aad')).toThrow(`no key with id ${keyIdOf(next)}`);
  });

  it('rejects malformed input and wrong key sizes', () => {
    expect(() => enc.decrypt('garbage', 'aad')).toThrow('malformed ciphertext');
    expect(() => parseKey(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
