import { Encryptor } from '../src/crypto/encryption';
import { ApiError } from '../src/http/errors';
import { openCredentials, PhoneNumber, publicBaseUrl } from '../src/telephony';
import { parseCredentials, sealCredentials } from '../src/telephony/phone-numbers/carrier-credentials';
import { CreatePhoneNumberBody, e164Number } from '../src/telephony/phone-numbers/phone-numbers.schemas';
import { inboundUrlOf, statusCallbackUrlOf } from '../src/telephony/phone-numbers/phone-numbers.service';
import { telnyxCredentials, twilioCredentials } from './support/phone-numbers';

const problems = (value: unknown) => {
  const result = e164Number.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => i.message);
};

describe('phone numbers: E.164 (libphonenumber-js, full metadata)', () => {
  it.each(['+14155552671', '+442079460000', '+33612345678', '+61291234567'])('%s is taken', (n) => {
    expect(problems(n)).toEqual([]);
  });

  it.each([
    ['14155552671', /^must be an E.164 number/],
    ['+1 415 555 2671', /^must be an E.164 number/],
    ['+0123456789', /^must be an E.164 number/],
    ['+1234567890123456', /^must be an E.164 number/],
    ['+1415555267', /^is not a valid phone number/],
    ['+999123456789', /^is not a valid phone number/],
    ['+4402079460000', /did you mean \+442079460000\?$/],
  ])('%s is refused', (n, message) => {
    expect(problems(n)).toEqual([expect.stringMatching(message)]);
  });
});

describe('phone numbers: carrier credentials', () => {
  it('are checked by the shape of the provider a create names', () => {
    const base = { number: '+14155552671', personaId: 'persona_abc' };
    expect(
      CreatePhoneNumberBody.safeParse({ ...base, provider: 'twilio', credentials: twilioCredentials() })
        .success,
    ).toBe(true);
    expect(
      CreatePhoneNumberBody.safeParse({ ...base, provider: 'telnyx', credentials: telnyxCredentials() })
        .success,
    ).toBe(true);
    const crossed = CreatePhoneNumberBody.safeParse({
      ...base,
      provider: 'telnyx',
      credentials: twilioCredentials(),
    });
    expect(crossed.success).toBe(false);
  });

  it('sent alone (a PUT) are checked against the stored provider, each field named', () => {
    const refusal = (() => {
      try {
        parseCredentials('twilio', { accountSid: 'AC1', authToken: '', apiKey: 'k' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).validationErrors).toEqual([
      expect.stringMatching(/^credentials\.accountSid: must be a Twilio Account SID/),
      'credentials.authToken: must be the auth token as the carrier shows it (no spaces)',
      'credentials.apiKey: unknown field',
    ]);
    const telnyx = telnyxCredentials();
    expect(parseCredentials('telnyx', telnyx)).toEqual(telnyx);
  });

  it('are sealed to their row: they open there, and nowhere else', () => {
    const encryptor = new Encryptor(Buffer.alloc(32, 3));
    const row = Object.assign(new PhoneNumber(), {
      account: 'pub_a',
      environment: 'test',
      provider: 'twilio',
    });
    const credentials = twilioCredentials();
    row.credentialsCiphertext = sealCredentials(encryptor, row, credentials);
    expect(row.credentialsCiphertext).not.toContain(credentials.authToken);
    expect(openCredentials(encryptor, row)).toEqual({ provider: 'twilio', ...credentials });
    expect(() => openCredentials(encryptor, { ...row, environment: 'live' })).toThrow(
      'failed authentication',
    );
    expect(() => openCredentials(encryptor, { ...row, id: 'pn_other' })).toThrow('failed authentication');
  });
});

describe('phone numbers: URLs', () => {
  const n = { id: 'pn_123', provider: 'twilio' as const };
  it('are built from PUBLIC_URL, else http://localhost:PORT', () => {
    expect(inboundUrlOf({ publicUrl: 'https://voice.example.com/', port: 3000 }, n)).toBe(
      'https://voice.example.com/api/v2/telephony/twilio/voice/pn_123',
    );
    expect(statusCallbackUrlOf({ publicUrl: undefined, port: 4000 }, n)).toBe(
      'http://localhost:4000/api/v2/telephony/twilio/status/pn_123',
    );
    expect(publicBaseUrl({ publicUrl: 'https://x.example/voice', port: 1 })).toBe('https://x.example/voice');
  });
});
