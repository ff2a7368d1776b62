import { loadConfig } from '../src/config/env';
import { Encryptor } from '../src/crypto/encryption';
import { LinkSigner, linkSigner } from '../src/crypto/signed-links';

const encryptor = new Encryptor(Buffer.alloc(32, 7));
const target = { resource: 'transcript:sess_a', accountId: 'pub_a' };

describe('signed links (docs/sessions.md "End-of-call links")', () => {
  it('reads LINK_SIGNING_KEY (at least 32 characters) and LINK_TTL_S (default 7 days)', () => {
    expect(loadConfig({}).links).toEqual({ signingKey: undefined, ttlSeconds: 604_800 });
    const key = 'k'.repeat(32);
    expect(loadConfig({ LINK_SIGNING_KEY: key, LINK_TTL_S: '3600' }).links).toEqual({
      signingKey: key,
      ttlSeconds: 3600,
    });
    expect(() => loadConfig({ LINK_SIGNING_KEY: 'short' })).toThrow(/LINK_SIGNING_KEY/);
    for (const bad of ['0', '59', '1.5', 'x'])
      expect(() => loadConfig({ LINK_TTL_S: bad })).toThrow(/LINK_TTL_S/);
  });

  it('checks the resource, the account, the expiry and the signature', () => {
    const signer = new LinkSigner(Buffer.from('s'.repeat(32)), 60);
    const now = Date.now();
    const expires = signer.expiresAt(now);
    expect(expires).toBe(Math.floor(now / 1000) + 60);
    const signature = signer.sign(target, expires);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signer.check(target, expires, signature, now)).toBe('valid');
    expect(signer.check(target, expires, signature, expires * 1000)).toBe('expired');
    expect(signer.check(target, expires + 1, signature, now)).toBe('invalid');
    expect(signer.check({ ...target, resource: 'transcript:sess_b' }, expires, signature, now)).toBe(
      'invalid',
    );
    expect(signer.check({ ...target, accountId: 'pub_b' }, expires, signature, now)).toBe('invalid');
    expect(signer.check(target, expires, signature.toUpperCase(), now)).toBe('invalid');
    expect(signer.check(target, expires, signature.slice(1), now)).toBe('invalid');
    // a forged signature is invalid however long ago it expired
    expect(signer.check(target, 1, signer.sign(target, 2), now)).toBe('invalid');
    expect(new URLSearchParams(signer.query(target, expires)).get('signature')).toBe(signature);
  });

  it('derives its key from the encryption key unless LINK_SIGNING_KEY is set', () => {
    const derived = linkSigner({ config: loadConfig({}), encryptor });
    const again = linkSigner({ config: loadConfig({}), encryptor });
    expect(again.sign(target, 1)).toBe(derived.sign(target, 1));
    const otherKey = linkSigner({ config: loadConfig({}), encryptor: new Encryptor(Buffer.alloc(32, 8)) });
    expect(otherKey.sign(target, 1)).not.toBe(derived.sign(target, 1));
    const configured = linkSigner({ config: loadConfig({ LINK_SIGNING_KEY: 'c'.repeat(40) }), encryptor });
    expect(configured.sign(target, 1)).not.toBe(derived.sign(target, 1));
    expect(configured.sign(target, 1)).toBe(new LinkSigner(Buffer.from('c'.repeat(40)), 1).sign(target, 1));
    // the derived key is not the encryption key itself
    expect(derived.sign(target, 1)).not.toBe(new LinkSigner(Buffer.alloc(32, 7), 1).sign(target, 1));
  });
});
