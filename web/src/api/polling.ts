/**
 * How the console follows something that changes on its own (a review, a delivery's retries, a
 * running execution, a live session) without competing with production (docs/console.md "Polling"):
 * - only while the tab is visible (TanStack Query pauses intervals in the background);
 * - every 2 s at first, doubling while nothing changes, at most every 30 s;
 * - not at all once the same state has lasted 10 minutes: states such as a review or a delivery
 *   waiting hours for its next attempt last days, and the page says so instead of asking.
 */
export const POLL_FIRST_MS = 2_000;
export const POLL_MAX_MS = 30_000;
export const POLL_GIVE_UP_MS = 10 * 60_000;

interface PolledQuery<T> {
  state: { data: T | undefined; dataUpdatedAt: number };
}

interface Followed {
  /** The data as last fetched (structural sharing keeps an unchanged answer the same object). */
  data: unknown;
  fetchedAt: number;
  unchanged: number;
  since: number;
}

const followed = new WeakMap<object, Followed>();

/**
 * A `refetchInterval` that polls while `active(data)`, backing off while the answer stays the same.
 * Its state lives with the query, so the function may be made anew on every render.
 */
export function backoffPolling<T>(active: (data: T | undefined) => boolean) {
  return (query: PolledQuery<T>): number | false => {
    const { data, dataUpdatedAt } = query.state;
    if (!active(data)) {
      followed.delete(query);
      return false;
    }
    const seen = followed.get(query) ?? { data, fetchedAt: dataUpdatedAt, unchanged: -1, since: Date.now() };
    if (seen.unchanged < 0 || dataUpdatedAt !== seen.fetchedAt) {
      const same = seen.unchanged >= 0 && data === seen.data;
      Object.assign(seen, {
        data,
        fetchedAt: dataUpdatedAt,
        unchanged: same ? seen.unchanged + 1 : 0,
        since: same ? seen.since : Date.now(),
      });
      followed.set(query, seen);
    }
    if (Date.now() - seen.since > POLL_GIVE_UP_MS) return false;
    return Math.min(POLL_MAX_MS, POLL_FIRST_MS * 2 ** seen.unchanged);
  };
}
