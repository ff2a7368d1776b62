import { PeriodQuery, SessionPeriodQuery, UsageQuery } from '../src/analytics/analytics.schemas';
import { errorCodeForStatus } from '../src/analytics/codes';
import { dayRows } from '../src/analytics/minute-buckets';
import {
  change,
  DAY_MS,
  daysBetween,
  environmentsOf,
  periodWindows,
  splitWindow,
  usageRange,
  utcDay,
} from '../src/analytics/windows';

const at = (s: string) => Date.parse(s);

describe('analytics windows', () => {
  it('periods are rolling windows ending with the current minute, the previous one right before', () => {
    const now = at('2026-11-24T10:15:30.500Z');
    const week = periodWindows('week', now);
    expect(new Date(week.current.to).toISOString()).toBe('2026-11-24T10:16:00.000Z');
    expect(new Date(week.current.from).toISOString()).toBe('2026-11-17T10:16:00.000Z');
    expect(week.previous).toEqual({ from: week.current.from - 7 * DAY_MS, to: week.current.from });
    expect(periodWindows('day', now).current.from).toBe(at('2026-11-23T10:16:00Z'));
    expect(periodWindows('month', now).current.from).toBe(at('2026-10-25T10:16:00Z'));
    expect(periodWindows('year', now).current.to - periodWindows('year', now).current.from).toBe(
      365 * DAY_MS,
    );
  });

  it('splits a window into whole UTC days and at most two partial edges', () => {
    expect(splitWindow({ from: at('2026-11-17T10:16:00Z'), to: at('2026-11-24T10:16:00Z') })).toEqual({
      days: { from: '2026-11-18', to: '2026-11-24' },
      edges: [
        { from: at('2026-11-17T10:16:00Z'), to: at('2026-11-18T00:00:00Z') },
        { from: at('2026-11-24T00:00:00Z'), to: at('2026-11-24T10:16:00Z') },
      ],
    });
    // aligned on midnight: days only
    expect(splitWindow({ from: at('2026-11-01T00:00:00Z'), to: at('2026-11-03T00:00:00Z') })).toEqual({
      days: { from: '2026-11-01', to: '2026-11-03' },
      edges: [],
    });
    // 24 hours across midnight: no whole day, one edge (the window itself)
    const day = { from: at('2026-11-23T10:16:00Z'), to: at('2026-11-24T10:16:00Z') };
    expect(splitWindow(day)).toEqual({ edges: [day] });
  });

  it('change: relative to the previous value; 0 when both are 0, 1 when only the previous is 0', () => {
    expect(change(15, 10)).toBe(0.5);
    expect(change(5, 10)).toBe(-0.5);
    expect(change(0, 10)).toBe(-1);
    expect(change(0, 0)).toBe(0);
    expect(change(7, 0)).toBe(1);
  });

  it('days, usage defaults and environments', () => {
    expect(utcDay(at('2026-11-24T23:59:59.999Z'))).toBe('2026-11-24');
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    expect(usageRange({}, at('2026-11-24T10:00:00Z'))).toEqual({ from: '2026-10-26', to: '2026-11-24' });
    expect(usageRange({ to: '2026-01-30' }, 0)).toEqual({ from: '2026-01-01', to: '2026-01-30' });
    expect(daysBetween(...(Object.values(usageRange({}, Date.now())) as [string, string]))).toHaveLength(30);
    expect(environmentsOf('all')).toEqual(['live', 'test']);
    expect(environmentsOf('test')).toEqual(['test']);
  });
});

describe('analytics queries', () => {
  it('period and environment default to week and live; anything else is refused by name', () => {
    expect(PeriodQuery.parse({})).toEqual({ period: 'week', environment: 'live' });
    expect(SessionPeriodQuery.parse({})).toEqual({
      period: 'week',
      environment: 'live',
      includeTestRuns: false,
    });
    expect(SessionPeriodQuery.parse({ includeTestRuns: 'true' }).includeTestRuns).toBe(true);
    expect(SessionPeriodQuery.safeParse({ includeTestRuns: 'yes' }).error?.issues[0].path).toEqual([
      'includeTestRuns',
    ]);
    expect(PeriodQuery.safeParse({ includeTestRuns: 'true' }).success).toBe(false);
    expect(PeriodQuery.safeParse({ period: 'quarter' }).error?.issues[0].path).toEqual(['period']);
    expect(PeriodQuery.safeParse({ environment: 'prod' }).error?.issues[0].path).toEqual(['environment']);
    expect(PeriodQuery.safeParse({ extra: '1' }).success).toBe(false);
  });

  it('usage dates must be real days, in order, at most 366 days apart', () => {
    expect(UsageQuery.parse({ from: '2026-01-01', to: '2026-01-31' })).toMatchObject({ from: '2026-01-01' });
    expect(UsageQuery.safeParse({ from: '2026-02-30' }).error?.issues[0].path).toEqual(['from']);
    expect(UsageQuery.safeParse({ to: '2026-1-5' }).error?.issues[0].path).toEqual(['to']);
    expect(UsageQuery.safeParse({ from: '2026-02-01', to: '2026-01-01' }).error?.issues[0]).toMatchObject({
      path: ['from'],
      message: 'must not be after to',
    });
    expect(UsageQuery.safeParse({ from: '2025-01-01', to: '2026-01-01' }).success).toBe(true); // 366 days
    expect(UsageQuery.safeParse({ from: '2025-01-01', to: '2026-01-02' }).error?.issues[0]).toMatchObject({
      path: ['from'],
      message: 'must be at most 366 days before to',
    });
  });
});

describe('analytics recorder rollups', () => {
  it('sums minute buckets per account, environment, UTC day and error code, keeping the latest message', () => {
    const base = {
      accountId: 'pub_a',
      environment: 'live',
      method: 'GET',
      route: '/api/v2/developers/tools',
      status: 404,
      errorCode: 'NOT_FOUND',
    };
    const rows = dayRows([
      {
        ...base,
        minute: at('2026-11-24T23:58:00Z'),
        calls: 2,
        latencyMsSum: 10,
        lastAt: at('2026-11-24T23:58:10Z'),
        lastMessage: 'old',
      },
      {
        ...base,
        minute: at('2026-11-24T23:59:00Z'),
        route: '/x',
        calls: 3,
        latencyMsSum: 5,
        lastAt: at('2026-11-24T23:59:30Z'),
        lastMessage: 'new',
      },
      {
        ...base,
        minute: at('2026-11-25T00:00:00Z'),
        calls: 1,
        latencyMsSum: 1,
        lastAt: at('2026-11-25T00:00:01Z'),
        lastMessage: 'next day',
      },
      {
        ...base,
        minute: at('2026-11-24T12:00:00Z'),
        status: 200,
        errorCode: '',
        calls: 4,
        latencyMsSum: 8,
        lastAt: at('2026-11-24T12:00:00Z'),
        lastMessage: null,
      },
    ]);
    expect(rows).toEqual([
      expect.objectContaining({ day: '2026-11-24', errorCode: '', calls: 4, latencyMsSum: 8 }),
      expect.objectContaining({
        day: '2026-11-24',
        errorCode: 'NOT_FOUND',
        calls: 5,
        latencyMsSum: 15,
        lastMessage: 'new',
      }),
      expect.objectContaining({
        day: '2026-11-25',
        errorCode: 'NOT_FOUND',
        calls: 1,
        lastMessage: 'next day',
      }),
    ]);
  });

  it('an error answer without a code gets the code of its status', () => {
    expect(errorCodeForStatus(400)).toBe('VALIDATION_FAILED');
    expect(errorCodeForStatus(404)).toBe('NOT_FOUND');
    expect(errorCodeForStatus(429)).toBe('RATE_LIMIT_EXCEEDED');
    expect(errorCodeForStatus(503)).toBe('SERVICE_UNAVAILABLE');
    expect(errorCodeForStatus(500)).toBe('INTERNAL');
  });
});
