import type { TimeWindow } from './windows';

/** A piece of SQL and its bindings. */
export interface Sql {
  sql: string;
  bindings: unknown[];
}

export const join = (parts: Sql[], separator: string): Sql => ({
  sql: parts.map((p) => p.sql).join(separator),
  bindings: parts.flatMap((p) => p.bindings),
});

/** `(t >= from and t < to) or …` over the edge ranges of a window. */
export function ranges(column: string, edges: TimeWindow[]): Sql {
  return {
    sql: edges.map(() => `(${column} >= ? and ${column} < ?)`).join(' or '),
    bindings: edges.flatMap((e) => [new Date(e.from), new Date(e.to)]),
  };
}
