/**
 * The pure rules of the Activities API (no I/O): the type pattern, the payload size limit, metric
 * paths, the stats window and the day keys. Unit tested in test/activity-log.unit.test.ts.
 */

/** An activity type: lower case, starting with a letter, then letters, digits and `_ . : -` (64 at most). */
export const ACTIVITY_TYPE_PATTERN = /^[a-z][a-z0-9_.:-]{0,63}$/;

/** A payload may be at most this many bytes as JSON (UTF-8). */
export const MAX_PAYLOAD_BYTES = 32 * 1024;

/** Size of `payload` as JSON text, in UTF-8 bytes. */
export const payloadBytes = (payload: unknown): number => Buffer.byteLength(JSON.stringify(payload), 'utf8');

/** A metric path: 1 to 8 dot-separated segments of letters, digits, `_` and `-` (64 each); digits index arrays. */
export const MAX_METRIC_SEGMENTS = 8;
const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The segments of a dotted metric path (`amount`, `order.total`, `items.0.price`), or the problem
 * with it. The segments go to SQL as a bound `text[]` parameter (`payload #> $1`), never as text.
 */
export function parseMetricPath(path: string): { segments: string[] } | { problem: string } {
  if (path.length === 0) return { problem: 'must not be empty' };
  const segments = path.split('.');
  if (segments.length > MAX_METRIC_SEGMENTS) {
    return { problem: `must have at most ${MAX_METRIC_SEGMENTS} segments` };
  }
  for (const segment of segments) {
    if (segment.length === 0)
      return { problem: 'must not have empty segments (`a..b`, leading or trailing dots)' };
    if (!SEGMENT.test(segment)) {
      return {
        problem: `segment "${segment.slice(0, 70)}" must be 1-64 letters, digits, "_" or "-" (a dotted path such as order.total)`,
      };
    }
  }
  return { segments };
}

/** The default stats window: the last 30 days. */
export const DEFAULT_STATS_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The stats window, both ends inclusive: `to` defaults to now, `from` to 30 days before `to`.
 * A `from` after `to` is a problem (named `from`).
 */
export function statsWindow(
  from: string | undefined,
  to: string | undefined,
  now: Date = new Date(),
): { from: Date; to: Date } | { problem: string } {
  const end = to ? new Date(to) : now;
  const start = from ? new Date(from) : new Date(end.getTime() - DEFAULT_STATS_WINDOW_MS);
  if (start.getTime() > end.getTime()) return { problem: 'from: must not be after to' };
  return { from: start, to: end };
}

/** A PostgreSQL numeric (sent as text to keep its precision) as a JS number, null staying null. */
export const toNumber = (value: string | number | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The whole UTC days inside a window (both ends inclusive): `[start, end)` at midnights, start being
 * `from` rounded up and end `to` rounded down, or null when the window holds no whole day. Counts
 * for those days come from the daily rollup; the two partial days at the edges from the rows.
 */
export function wholeDays(from: Date, to: Date): { start: Date; end: Date } | null {
  const start = new Date(Math.ceil(from.getTime() / DAY_MS) * DAY_MS);
  const end = new Date(Math.floor(to.getTime() / DAY_MS) * DAY_MS);
  return start.getTime() < end.getTime() ? { start, end } : null;
}

/**
 * The whole ISO weeks (Monday to Sunday, UTC) inside `[start, end)` (UTC midnights): `[start, end)`
 * at Mondays, or null when there is none.
 */
export function wholeWeeks(start: Date, end: Date): { start: Date; end: Date } | null {
  const mondayAtOrAfter = (d: Date) => new Date(d.getTime() + ((8 - d.getUTCDay()) % 7) * DAY_MS);
  const mondayAtOrBefore = (d: Date) => new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS);
  const first = mondayAtOrAfter(start);
  const last = mondayAtOrBefore(end);
  return first.getTime() < last.getTime() ? { start: first, end: last } : null;
}

/** `YYYY-MM-DD` of a UTC midnight. */
export const utcDate = (d: Date): string => d.toISOString().slice(0, 10);
