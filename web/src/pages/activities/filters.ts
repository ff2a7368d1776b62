/** The activity filters as the page holds them (dates as YYYY-MM-DD, UTC days). */
export interface ActivityFilters {
  type: string;
  userId: string;
  from: string;
  to: string;
}

export const NO_FILTERS: ActivityFilters = { type: '', userId: '', from: '', to: '' };

/** The filters as API query parameters: empty ones left out, days as the start and end of the UTC day. */
export function filterQuery(filters: ActivityFilters) {
  return {
    type: filters.type.trim() || undefined,
    userId: filters.userId.trim() || undefined,
    from: filters.from ? `${filters.from}T00:00:00Z` : undefined,
    to: filters.to ? `${filters.to}T23:59:59.999Z` : undefined,
  };
}

/** Every UTC day from `from` to `to` (ISO timestamps), as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(to.slice(0, 10));
  for (let t = Date.parse(from.slice(0, 10)); t <= end && days.length < 1000; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}
