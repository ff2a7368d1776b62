import { Encryptor } from '../src/crypto/encryption';
import { ApiError } from '../src/http/errors';
import {
  ALLOWED_DESTINATION_COUNTRIES,
  checkCallCaps,
  checkDestination,
} from '../src/telephony/calls/call-limits';
import { advances, CALL_STATUSES, endedReasonOf, isTerminal } from '../src/telephony/calls/call-statuses';
import { mintStreamToken, readStreamToken, STREAM_TOKEN_TTL_MS } from '../src/telephony/calls/stream-token';

const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError)
      return { status: error.status, code: error.code, lines: error.validationErrors };
    throw error;
  }
  return undefined;
};

describe('call destinations (toll fraud)', () => {
  const us = '+14155552671';
  it('allows the number’s own country, refuses another, premium-rate and shared-cost numbers', () => {
    expect(refusal(() => checkDestination('pub_x', us, '+14155550123'))).toBeUndefined();
    expect(refusal(() => checkDestination('pub_x', us, '+442079460000'))).toMatchObject({
      status: 400,
      lines: [expect.stringContaining('GB are not allowed for this account (allowed: US)')],
    });
    expect(refusal(() => checkDestination('pub_x', us, '+19005551234'))?.lines?.[0]).toContain(
      'premium-rate',
    );
    expect(refusal(() => checkDestination('pub_x', '+33142685300', '+33810123456'))?.lines?.[0]).toContain(
      'shared-cost',
    );
  });

  it('takes an account’s allowed countries from ALLOWED_DESTINATION_COUNTRIES', () => {
    const table = ALLOWED_DESTINATION_COUNTRIES as Record<string, readonly string[]>;
    table.pub_allowed = ['US', 'GB'];
    try {
      expect(refusal(() => checkDestination('pub_allowed', us, '+442079460000'))).toBeUndefined();
      expect(refusal(() => checkDestination('pub_allowed', us, '+33142685300'))?.status).toBe(400);
    } finally {
      delete table.pub_allowed;
    }
  });
});

describe('plan caps on calls', () => {
  it('free: 2 at once, 20 a day; pro: 20 and 2000; enterprise: none', () => {
    expect(refusal(() => checkCallCaps('free', { unfinished: 1, lastDay: 19 }))).toBeUndefined();
    expect(refusal(() => checkCallCaps('free', { unfinished: 2, lastDay: 0 }))?.code).toBe(
      'PLAN_LIMIT_REACHED',
    );
    expect(refusal(() => checkCallCaps('free', { unfinished: 0, lastDay: 20 }))?.code).toBe(
      'PLAN_LIMIT_REACHED',
    );
    expect(refusal(() => checkCallCaps('pro', { unfinished: 19, lastDay: 1999 }))).toBeUndefined();
    expect(refusal(() => checkCallCaps('pro', { unfinished: 0, lastDay: 2000 }))?.status).toBe(403);
    expect(refusal(() => checkCallCaps('enterprise', { unfinished: 1e6, lastDay: 1e6 }))).toBeUndefined();
  });
});

describe('call statuses', () => {
  it('move forward only, and a terminal one is final', () => {
    expect(advances('queued', 'ringing')).toBe(true);
    expect(advances('queued', 'in-progress')).toBe(true);
    expect(advances('in-progress', 'ringing')).toBe(false);
    expect(advances('ringing', 'ringing')).toBe(false);
    expect(advances('ringing', 'busy')).toBe(true);
    for (const terminal of CALL_STATUSES.filter(isTerminal)) {
      for (const next of CALL_STATUSES) expect(advances(terminal, next)).toBe(false);
    }
    expect(endedReasonOf('no-answer')).toBe('no_answer');
    expect(endedReasonOf('busy')).toBe('busy');
  });
});

describe('stream tokens', () => {
  const encryptor = new Encryptor(Buffer.alloc(32, 9));
  it('name their call until they expire, and only with the key that made them', () => {
    const now = Date.now();
    const token = mintStreamToken(encryptor, 'call_abc', now);
    expect(token.length).toBeLessThan(490 - 'callToken'.length);
    expect(readStreamToken(encryptor, token, now + STREAM_TOKEN_TTL_MS - 1)).toEqual({
      callId: 'call_abc',
      seq: 0,
    });
    expect(readStreamToken(encryptor, token, now + STREAM_TOKEN_TTL_MS)).toBeUndefined();
    expect(readStreamToken(new Encryptor(Buffer.alloc(32, 8)), token, now)).toBeUndefined();
    const at = token.length - 6;
    const tampered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(readStreamToken(encryptor, tampered, now)).toBeUndefined();
  });
});
