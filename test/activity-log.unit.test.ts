import {
  ActivityStatsQuery,
  CreateActivityBody,
  UpdateActivityBody,
} from '../src/activity-log/activities.schemas';
import {
  ACTIVITY_TYPE_PATTERN,
  DEFAULT_STATS_WINDOW_MS,
  MAX_PAYLOAD_BYTES,
  parseMetricPath,
  payloadBytes,
  statsWindow,
  toNumber,
  utcDate,
  wholeDays,
  wholeWeeks,
} from '../src/activity-log/rules';

describe('metric paths', () => {
  it('splits dotted paths into segments', () => {
    expect(parseMetricPath('amount')).toEqual({ segments: ['amount'] });
    expect(parseMetricPath('order.total')).toEqual({ segments: ['order', 'total'] });
    expect(parseMetricPath('items.0.unit_price')).toEqual({ segments: ['items', '0', 'unit_price'] });
    expect(parseMetricPath('a-b.C_9')).toEqual({ segments: ['a-b', 'C_9'] });
    expect(parseMetricPath('a.b.c.d.e.f.g.h')).toEqual({
      segments: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    });
  });

  it('refuses empty segments, odd characters, long segments and deep paths', () => {
    for (const bad of ['', '.', 'a..b', '.a', 'a.', 'a b', "a'b", 'a.$x', 'a[0]', 'a,b', '{a}', 'ä']) {
      expect(parseMetricPath(bad)).toEqual({ problem: expect.any(String) });
    }
    expect(parseMetricPath('x'.repeat(64))).toEqual({ segments: ['x'.repeat(64)] });
    expect(parseMetricPath('x'.repeat(65))).toEqual({ problem: expect.stringMatching(/1-64/) });
    expect(parseMetricPath('a.b.c.d.e.f.g.h.i')).toEqual({ problem: expect.stringMatching(/at most 8/) });
  });
});

describe('stats window', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('defaults to the 30 days before now, or before `to`', () => {
    expect(statsWindow(undefined, undefined, now)).toEqual({
      from: new Date(now.getTime() - DEFAULT_STATS_WINDOW_MS),
      to: now,
    });
    expect(statsWindow(undefined, '2026-02-01T00:00:00Z', now)).toEqual({
      from: new Date('2026-01-02T00:00:00Z'),
      to: new Date('2026-02-01T00:00:00Z'),
    });
    expect(statsWindow('2020-01-01T00:00:00Z', undefined, now)).toEqual({
      from: new Date('2020-01-01T00:00:00Z'),
      to: now,
    });
  });

  it('refuses from after to, accepts an instant', () => {
    expect(statsWindow('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z', now)).toEqual({
      problem: 'from: must not be after to',
    });
    const instant = statsWindow('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', now);
    expect(instant).toEqual({ from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:00Z') });
  });
});

describe('activity rules', () => {
  it('type pattern', () => {
    for (const ok of ['a', 'order.placed', 'x:y-z_1', `a${'b'.repeat(63)}`])
      expect(ACTIVITY_TYPE_PATTERN.test(ok)).toBe(true);
    for (const bad of ['', 'A', '1a', '_a', 'a b', 'a/b', `a${'b'.repeat(64)}`, 'é']) {
      expect(ACTIVITY_TYPE_PATTERN.test(bad)).toBe(false);
    }
  });

  it('payload size counts UTF-8 bytes of the JSON text', () => {
    expect(payloadBytes({})).toBe(2);
    expect(payloadBytes({ a: 'é' })).toBe(10);
    const atLimit = { b: 'x'.repeat(MAX_PAYLOAD_BYTES - 8) };
    expect(payloadBytes(atLimit)).toBe(MAX_PAYLOAD_BYTES);
    expect(CreateActivityBody.safeParse({ type: 'x', payload: atLimit }).success).toBe(true);
    const over = CreateActivityBody.safeParse({
      type: 'x',
      payload: { b: 'é'.repeat(MAX_PAYLOAD_BYTES / 2) },
    });
    expect(over.success).toBe(false);
    expect(over.error?.issues[0].path).toEqual(['payload']);
  });

  it('numeric text from PostgreSQL becomes a number, null stays null', () => {
    expect(toNumber('33.25')).toBe(33.25);
    expect(toNumber('-1.2500')).toBe(-1.25);
    expect(toNumber(null)).toBeNull();
    expect(toNumber(undefined)).toBeNull();
  });
});

describe('schemas', () => {
  it('updates need at least one known field', () => {
    expect(UpdateActivityBody.safeParse({}).success).toBe(false);
    expect(UpdateActivityBody.safeParse({ userId: 'u' }).success).toBe(false);
    expect(UpdateActivityBody.safeParse({ occurredAt: '2026-01-01T00:00:00+01:00' }).success).toBe(true);
  });

  it('stats query: groupBy, metric path, limit', () => {
    expect(ActivityStatsQuery.parse({})).toEqual({ limit: 100 });
    expect(ActivityStatsQuery.parse({ groupBy: 'day', metric: 'order.total', limit: '5' })).toEqual({
      groupBy: 'day',
      metric: 'order.total',
      limit: 5,
    });
    const bad = ActivityStatsQuery.safeParse({ groupBy: 'week', metric: 'a..b', limit: '0' });
    expect(bad.error?.issues.map((i) => i.path[0]).sort()).toEqual(['groupBy', 'limit', 'metric']);
  });
});

describe('whole days of a window', () => {
  const d = (iso: string) => new Date(iso);
  it('rounds from up and to down to UTC midnights', () => {
    expect(wholeDays(d('2026-03-01T00:00:00Z'), d('2026-03-04T00:00:00Z'))).toEqual({
      start: d('2026-03-01T00:00:00Z'),
      end: d('2026-03-04T00:00:00Z'),
    });
    expect(wholeDays(d('2026-03-01T00:00:00.001Z'), d('2026-03-03T23:59:59.999Z'))).toEqual({
      start: d('2026-03-02T00:00:00Z'),
      end: d('2026-03-03T00:00:00Z'),
    });
    expect(utcDate(d('2026-03-02T00:00:00Z'))).toBe('2026-03-02');
  });

  it('is null when no whole day fits', () => {
    expect(wholeDays(d('2026-03-01T06:00:00Z'), d('2026-03-02T05:00:00Z'))).toBeNull();
    expect(wholeDays(d('2026-03-01T00:00:00Z'), d('2026-03-01T23:59:59.999Z'))).toBeNull();
  });
});

describe('wholeWeeks', () => {
  const d = (s: string) => new Date(`${s}T00:00:00Z`);
  it('gives the Monday-to-Sunday weeks inside whole days, or null', () => {
    // Thu Jun 5 to Tue Jun 24 2025: the weeks of Mon Jun 9 and Mon Jun 16
    expect(wholeWeeks(d('2025-06-05'), d('2025-06-24'))).toEqual({
      start: d('2025-06-09'),
      end: d('2025-06-23'),
    });
    // starting and ending on Mondays: every week
    expect(wholeWeeks(d('2025-06-09'), d('2025-06-23'))).toEqual({
      start: d('2025-06-09'),
      end: d('2025-06-23'),
    });
    // a Sunday start moves to the next day; less than a week is none
    expect(wholeWeeks(d('2025-06-08'), d('2025-06-16'))).toEqual({
      start: d('2025-06-09'),
      end: d('2025-06-16'),
    });
    expect(wholeWeeks(d('2025-06-10'), d('2025-06-16'))).toBeNull();
    expect(wholeWeeks(d('2025-06-09'), d('2025-06-15'))).toBeNull();
  });
});
