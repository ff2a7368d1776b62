import { createHmac } from 'node:crypto';
import { parseSignatureHeader, verifyWebhookSignature } from '../src/index';
import { generateWebhookSecret, signatureHeaders } from '../src/webhooks/signature';

describe('verifyWebhookSignature', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'tool.called', data: { a: 'é' } });
  const now = new Date('2026-11-21T12:00:00Z');
  const header = signatureHeaders([secret], 'evt_1', body, now)['X-Service-Signature'];

  it('accepts the exact body within the tolerance, as string or Buffer', () => {
    expect(verifyWebhookSignature(body, header, secret, 300, now)).toBe(true);
    expect(
      verifyWebhookSignature(Buffer.from(body), header, secret, 300, new Date(now.getTime() + 299_000)),
    ).toBe(true);
  });

  it('computes v1 exactly as docs/api-contract.md "Webhook signatures" says', () => {
    const t = Math.floor(now.getTime() / 1000);
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(header).toBe(`t=${t},v1=${expected}`);
  });

  it('rejects a tampered body, a stale or future timestamp, another secret, malformed headers', () => {
    expect(verifyWebhookSignature(body.replace('tool', 'tooI'), header, secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(`${body} `, header, secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, 300, new Date(now.getTime() + 301_000))).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, 300, new Date(now.getTime() - 301_000))).toBe(false);
    expect(verifyWebhookSignature(body, header, generateWebhookSecret(), 300, now)).toBe(false);
    expect(verifyWebhookSignature(body, '', secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(body, undefined, secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(body, 't=abc,v1=zz', secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(body, header.replace(/v1=\w+/, 'v1=short'), secret, 300, now)).toBe(false);
    const flipped = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
    expect(verifyWebhookSignature(body, flipped, secret, 300, now)).toBe(false);
  });

  it('uses the tolerance given, 300 s by default', () => {
    const later = new Date(now.getTime() + 100_000);
    expect(verifyWebhookSignature(body, header, secret, 60, later)).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, undefined, later)).toBe(true);
  });

  it('parses headers with several v1 values (secret rotation)', () => {
    const two = signatureHeaders([secret, generateWebhookSecret()], 'evt_1', body, now)[
      'X-Service-Signature'
    ];
    expect(parseSignatureHeader(two)?.v1).toHaveLength(2);
    expect(verifyWebhookSignature(body, two, secret, 300, now)).toBe(true);
  });
});
