import { utcDay } from './windows';

/** One rollup row in the making: the calls of one key in one minute. */
export interface MinuteBucket {
  accountId: string;
  environment: string;
  minute: number;
  method: string;
  route: string;
  status: number;
  errorCode: string;
  calls: number;
  latencyMsSum: number;
  lastAt: number;
  lastMessage: string | null;
}

interface DayRow {
  accountId: string;
  environment: string;
  day: string;
  errorCode: string;
  calls: number;
  latencyMsSum: number;
  lastAt: number;
  lastMessage: string | null;
}

/** The minute rows summed per account, environment, UTC day and error code, in key order. */
export function dayRows(rows: MinuteBucket[]): DayRow[] {
  const days = new Map<string, DayRow>();
  for (const r of rows) {
    const day = utcDay(r.minute);
    const key = `${r.accountId}\u0001${r.environment}\u0001${day}\u0001${r.errorCode}`;
    const row = days.get(key);
    if (!row) {
      days.set(key, {
        accountId: r.accountId,
        environment: r.environment,
        day,
        errorCode: r.errorCode,
        calls: r.calls,
        latencyMsSum: r.latencyMsSum,
        lastAt: r.lastAt,
        lastMessage: r.lastMessage,
      });
      continue;
    }
    row.calls += r.calls;
    row.latencyMsSum += r.latencyMsSum;
    if (r.lastAt >= row.lastAt) {
      row.lastAt = r.lastAt;
      row.lastMessage = r.lastMessage;
    }
  }
  return [...days.values()].sort(
    (a, b) =>
      cmp(a.accountId, b.accountId) ||
      cmp(a.environment, b.environment) ||
      cmp(a.day, b.day) ||
      cmp(a.errorCode, b.errorCode),
  );
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Minute buckets in key order (the order the upserts take their row locks in). */
export function compareBuckets(a: MinuteBucket, b: MinuteBucket): number {
  return (
    cmp(a.accountId, b.accountId) ||
    cmp(a.environment, b.environment) ||
    a.minute - b.minute ||
    cmp(a.method, b.method) ||
    cmp(a.route, b.route) ||
    a.status - b.status ||
    cmp(a.errorCode, b.errorCode)
  );
}
