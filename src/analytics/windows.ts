/** Time windows of console analytics: periods, their previous periods, whole days and edges. Pure. */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export const PERIODS = ['day', 'week', 'month', 'year'] as const;
export type Period = (typeof PERIODS)[number];

/** Each period is a rolling window of this many days ending now. */
export const PERIOD_DAYS: Record<Period, number> = { day: 1, week: 7, month: 30, year: 365 };

/** `environment=live|test|all` as the environments it covers. */
export const ANALYTICS_ENVIRONMENTS = ['live', 'test', 'all'] as const;
export type AnalyticsEnvironment = (typeof ANALYTICS_ENVIRONMENTS)[number];
export const environmentsOf = (environment: AnalyticsEnvironment): string[] =>
  environment === 'all' ? ['live', 'test'] : [environment];

/** A half-open time range [from, to), in ms since the epoch. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string =>
  new Date(ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)).toISOString().slice(0, 10);

/** Midnight UTC of a `YYYY-MM-DD` day, in ms. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);

const floorTo = (ms: number, unit: number) => ms - (((ms % unit) + unit) % unit);
const ceilTo = (ms: number, unit: number) => {
  const floor = floorTo(ms, unit);
  return floor === ms ? ms : floor + unit;
};

/**
 * The current period ends with the minute in progress (`now` rounded up to the next minute) and
 * lasts the period's days; the previous period is as long and ends where the current one starts.
 */
export function periodWindows(period: Period, now: number): { current: TimeWindow; previous: TimeWindow } {
  const to = floorTo(now, MINUTE_MS) + MINUTE_MS;
  const length = PERIOD_DAYS[period] * DAY_MS;
  return {
    current: { from: to - length, to },
    previous: { from: to - 2 * length, to: to - length },
  };
}

/**
 * How a window is read: its whole UTC days from the daily rollups (`days`, `[from, to)` as
 * `YYYY-MM-DD`, absent when there is none) and the rest, at most two partial days, from the
 * per-minute rollups or the rows (`edges`, empty ranges left out).
 */
export function splitWindow(window: TimeWindow): {
  days?: { from: string; to: string };
  edges: TimeWindow[];
} {
  const firstWhole = ceilTo(window.from, DAY_MS);
  const endWhole = floorTo(window.to, DAY_MS);
  if (firstWhole >= endWhole) return { edges: window.from < window.to ? [window] : [] };
  const edges = [
    { from: window.from, to: firstWhole },
    { from: endWhole, to: window.to },
  ].filter((w) => w.from < w.to);
  return { days: { from: utcDay(firstWhole), to: utcDay(endWhole) }, edges };
}

/**
 * Change against the previous period: (current − previous) / previous; 0 when both are 0, 1 when
 * only the previous one is 0.
 */
export function change(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 1;
  return (current - previous) / previous;
}

/** Every day from `from` to `to` (both `YYYY-MM-DD`, inclusive), in order. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = dayStart(from), end = dayStart(to); t <= end; t += DAY_MS) days.push(utcDay(t));
  return days;
}

/** Whole days from `from` to `to`, inclusive (1 for the same day). */
export const dayCount = (from: string, to: string): number =>
  Math.round((dayStart(to) - dayStart(from)) / DAY_MS) + 1;

/** `/analytics/usage` without `from`/`to`: the last 30 days, today included. */
export const USAGE_DEFAULT_DAYS = 30;
/** The longest `/analytics/usage` range. */
export const USAGE_MAX_DAYS = 366;

/** The usage range: `to` defaults to today (UTC), `from` to 29 days before `to`. */
export function usageRange(query: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const to = query.to ?? utcDay(now);
  const from = query.from ?? utcDay(dayStart(to) - (USAGE_DEFAULT_DAYS - 1) * DAY_MS);
  return { from, to };
}
