import type { z } from 'zod';
import { validationFailed } from './errors';

type Location = 'body' | 'query' | 'params' | 'headers';

/** Turns zod issues into `<field>: <problem>` lines; unknown keys are named one by one. */
export function describeIssues(issues: z.core.$ZodIssue[], location: Location): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${base ? `${base}.` : ''}${key}: unknown field`);
      continue;
    }
    const field = base || (location === 'body' ? 'body' : location);
    lines.push(`${field}: ${issue.message}`);
  }
  return lines;
}

/** The same lines for a value nested at `prefix` (e.g. `config`, `nodes[2].config`). */
export function describeIssuesUnder(issues: z.core.$ZodIssue[], prefix: string): string[] {
  return describeIssues(issues, 'body').map((line) =>
    line.startsWith('body:') ? `${prefix}${line.slice(4)}` : `${prefix}.${line}`,
  );
}

export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  location: Location,
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const lines = describeIssues(result.error.issues, location);
    throw validationFailed(
      lines,
      `Invalid request ${location === 'params' ? 'path' : location}: ${lines[0]}`,
    );
  }
  return result.data;
}
