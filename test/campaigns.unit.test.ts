import { outcomeOfCall, type RetryPlan, retries } from '../src/campaigns/call-outcomes';
import { callingWindow, campaignTime, isTimeZone, localMinuteOfDay } from '../src/campaigns/calling-hours';

const realClock = { minuteMs: 60_000, anchorMs: 0 };
const at = (iso: string) => Date.parse(iso);

describe('calling hours', () => {
  it('reads the local time in the campaign time zone', () => {
    expect(localMinuteOfDay(at('2026-06-01T13:30:00Z'), 'UTC')).toBe(13 * 60 + 30);
    // New York is UTC-4 in June (DST), UTC-5 in January
    expect(localMinuteOfDay(at('2026-06-01T13:30:00Z'), 'America/New_York')).toBe(9 * 60 + 30);
    expect(localMinuteOfDay(at('2026-01-15T13:30:00Z'), 'America/New_York')).toBe(8 * 60 + 30);
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('is open inside the window and says when it closes; closed outside and says when it opens', () => {
    const hours = { start: '09:00', end: '17:00', timezone: 'America/New_York' };
    expect(callingWindow(hours, realClock, at('2026-06-01T13:30:00Z'))).toEqual({
      open: true,
      changesInMs: 7.5 * 3_600_000,
    });
    // 20:00 in New York: it opens at 09:00 the next day, 13 hours later
    expect(callingWindow(hours, realClock, at('2026-06-02T00:00:00Z'))).toEqual({
      open: false,
      changesInMs: 13 * 3_600_000,
    });
  });

  it('spans midnight when the end is before the start', () => {
    const night = { start: '22:00', end: '02:00', timezone: 'UTC' };
    expect(callingWindow(night, realClock, at('2026-06-01T23:00:00Z'))).toEqual({
      open: true,
      changesInMs: 3 * 3_600_000,
    });
    expect(callingWindow(night, realClock, at('2026-06-01T01:00:00Z')).open).toBe(true);
    expect(callingWindow(night, realClock, at('2026-06-01T12:00:00Z'))).toEqual({
      open: false,
      changesInMs: 10 * 3_600_000,
    });
  });

  it('runs on a faster clock when a minute is shorter (CAMPAIGN_MINUTE_MS)', () => {
    const anchor = at('2026-06-01T08:00:00Z');
    const fast = { minuteMs: 10, anchorMs: anchor };
    // 6 s of real time are 600 campaign minutes: 18:00 on the campaign clock
    expect(new Date(campaignTime(fast, anchor + 6_000)).toISOString()).toBe('2026-06-01T18:00:00.000Z');
    const hours = { start: '09:00', end: '17:00', timezone: 'UTC' };
    // at 08:00 it opens in 60 campaign minutes: 600 ms
    expect(callingWindow(hours, fast, anchor)).toEqual({ open: false, changesInMs: 600 });
    // at 18:00 it opens in 15 hours: 9 s
    expect(callingWindow(hours, fast, anchor + 6_000)).toEqual({ open: false, changesInMs: 9_000 });
  });
});

describe('call outcomes and retries', () => {
  const plan: RetryPlan = {
    onBusy: true,
    onNoAnswer: false,
    onVoicemail: true,
    maxAttempts: 3,
    delayMinutes: 5,
  };

  it("maps a call's end to its outcome", () => {
    expect(outcomeOfCall({ status: 'completed', endedReason: 'completed' })).toBe('answered');
    expect(outcomeOfCall({ status: 'completed', endedReason: 'voicemail' })).toBe('voicemail');
    expect(outcomeOfCall({ status: 'busy', endedReason: 'busy' })).toBe('busy');
    expect(outcomeOfCall({ status: 'no-answer', endedReason: 'no_answer' })).toBe('no-answer');
    expect(outcomeOfCall({ status: 'failed', endedReason: 'carrier_refused: no' })).toBe('failed');
    expect(outcomeOfCall({ status: 'canceled', endedReason: 'hangup' })).toBe('failed');
  });

  it('retries what the plan says, up to maxAttempts', () => {
    expect(retries(plan, 'busy', 1)).toBe(true);
    expect(retries(plan, 'busy', 3)).toBe(false);
    expect(retries(plan, 'no-answer', 1)).toBe(false);
    expect(retries(plan, 'voicemail', 2)).toBe(true);
    expect(retries(plan, 'answered', 1)).toBe(false);
    expect(retries(plan, 'failed', 1)).toBe(false);
  });
});
