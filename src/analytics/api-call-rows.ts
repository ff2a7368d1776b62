import { join, ranges, type Sql } from './sql';
import { splitWindow, type TimeWindow } from './windows';

/**
 * The API call rows of a window: whole days from `api_call_days`, the partial days at its edges
 * from `api_call_minutes`. Columns: calls, error_code, latency_ms_sum, last_at, last_message.
 */
export function apiCallRows(accountId: string, envs: string[], window: TimeWindow, errorsOnly = false): Sql {
  const { days, edges } = splitWindow(window);
  const errorFilter = errorsOnly ? ` and "error_code" <> ''` : '';
  const parts: Sql[] = [];
  if (days) {
    parts.push({
      sql: `select "calls", "error_code", "latency_ms_sum", "last_at", "last_message" from "api_call_days"
        where "account_id" = ? and "environment" = any(?) and "day" >= ?::date and "day" < ?::date${errorFilter}`,
      bindings: [accountId, envs, days.from, days.to],
    });
  }
  if (edges.length) {
    const r = ranges('"minute"', edges);
    parts.push({
      sql: `select "calls", "error_code", "latency_ms_sum", "last_at", "last_message" from "api_call_minutes"
        where "account_id" = ? and "environment" = any(?) and (${r.sql})${errorFilter}`,
      bindings: [accountId, envs, ...r.bindings],
    });
  }
  return join(parts, ' union all ');
}
