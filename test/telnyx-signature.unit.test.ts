import { generateKeyPairSync, webcrypto } from 'node:crypto';
import {
  TELNYX_SIGNATURE_HEADER,
  TELNYX_TIMESTAMP_HEADER,
  telnyxPublicKey,
  telnyxSignature,
  verifyTelnyxSignature,
} from '../src/telephony/telnyx/signature';
import { telnyxKeyPair } from './support/telnyx-double/webhooks';

/**
 * Telnyx's webhook signature: Ed25519 over `<telnyx-timestamp>|<raw body>`, base64, checked with
 * the account's public key as the portal shows it (the raw 32 bytes, base64). Signatures made by
 * WebCrypto (the way Telnyx's own Node library checks them: the raw key imported as Ed25519) are
 * checked too, so the two implementations agree.
 */
const body = JSON.stringify({
  data: {
    record_type: 'event',
    id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
    event_type: 'call.initiated',
    payload: { call_control_id: 'v3:abc' },
  },
  meta: { attempt: 1 },
});
const now = Date.UTC(2026, 10, 28, 15, 0, 0);
const ts = String(Math.floor(now / 1000));
const { privateKey, publicKeyBase64 } = telnyxKeyPair();
const headers = (signature: string | undefined, timestamp: string | null = ts) => ({
  ...(signature === undefined ? {} : { [TELNYX_SIGNATURE_HEADER]: signature }),
  ...(timestamp === null ? {} : { [TELNYX_TIMESTAMP_HEADER]: timestamp }),
});

describe('verifyTelnyxSignature', () => {
  it('accepts Telnyx’s signature of the raw body at its timestamp, within five minutes either way', () => {
    const signature = telnyxSignature(privateKey, ts, body);
    expect(Buffer.from(signature, 'base64')).toHaveLength(64);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature), body, now)).toBe(true);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature), Buffer.from(body), now + 299_000)).toBe(
      true,
    );
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature), body, now - 299_000)).toBe(true);
  });

  it('agrees with WebCrypto’s Ed25519 both ways (the raw public key, as Telnyx’s library imports it)', async () => {
    const keys = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, [
      'sign',
      'verify',
    ])) as unknown as webcrypto.CryptoKeyPair;
    const raw = Buffer.from(await webcrypto.subtle.exportKey('raw', keys.publicKey)).toString('base64');
    const signed = new TextEncoder().encode(`${ts}|${body}`);
    const theirs = Buffer.from(await webcrypto.subtle.sign('Ed25519', keys.privateKey, signed)).toString(
      'base64',
    );
    expect(verifyTelnyxSignature(raw, headers(theirs), body, now)).toBe(true);
    const ours = Buffer.from(telnyxSignature(privateKey, ts, body), 'base64');
    const imported = await webcrypto.subtle.importKey(
      'raw',
      Buffer.from(publicKeyBase64, 'base64'),
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
    expect(await webcrypto.subtle.verify('Ed25519', imported, ours, signed)).toBe(true);
  });

  it('refuses a changed body, another timestamp, another key or a signature that is not one', () => {
    const signature = telnyxSignature(privateKey, ts, body);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature), body.replace('abc', 'abd'), now)).toBe(
      false,
    );
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature), `${body} `, now)).toBe(false);
    expect(
      verifyTelnyxSignature(publicKeyBase64, headers(signature, String(Number(ts) + 1)), body, now),
    ).toBe(false);
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(verifyTelnyxSignature(publicKeyBase64, headers(telnyxSignature(other, ts, body)), body, now)).toBe(
      false,
    );
    const flipped = Buffer.from(signature, 'base64');
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect(verifyTelnyxSignature(publicKeyBase64, headers(flipped.toString('base64')), body, now)).toBe(
      false,
    );
    expect(verifyTelnyxSignature(publicKeyBase64, headers('c2hvcnQ='), body, now)).toBe(false);
  });

  it('refuses a stale or future timestamp (over five minutes), even when the signature is right', () => {
    const old = String(Number(ts) - 301);
    expect(
      verifyTelnyxSignature(publicKeyBase64, headers(telnyxSignature(privateKey, old, body), old), body, now),
    ).toBe(false);
    const ahead = String(Number(ts) + 301);
    expect(
      verifyTelnyxSignature(
        publicKeyBase64,
        headers(telnyxSignature(privateKey, ahead, body), ahead),
        body,
        now,
      ),
    ).toBe(false);
    expect(
      verifyTelnyxSignature(
        publicKeyBase64,
        headers(telnyxSignature(privateKey, 'abc', body), 'abc'),
        body,
        now,
      ),
    ).toBe(false);
  });

  it('refuses a missing signature or timestamp, and a public key that is not 32 bytes', () => {
    const signature = telnyxSignature(privateKey, ts, body);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(undefined), body, now)).toBe(false);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(signature, null), body, now)).toBe(false);
    expect(verifyTelnyxSignature(publicKeyBase64, headers(''), body, now)).toBe(false);
    expect(
      verifyTelnyxSignature(
        publicKeyBase64,
        { [TELNYX_SIGNATURE_HEADER]: [signature], [TELNYX_TIMESTAMP_HEADER]: ts },
        body,
        now,
      ),
    ).toBe(false);
    expect(verifyTelnyxSignature('', headers(signature), body, now)).toBe(false);
    expect(verifyTelnyxSignature(Buffer.alloc(31).toString('base64'), headers(signature), body, now)).toBe(
      false,
    );
    expect(telnyxPublicKey(publicKeyBase64)?.asymmetricKeyType).toBe('ed25519');
  });
});
