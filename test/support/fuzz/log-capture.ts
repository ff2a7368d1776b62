/**
 * A pino destination that keeps the app's log lines in memory, so a test can search them (for secret
 * values) and then let them go.
 */
export class LogCapture {
  private lines: string[] = [];
  /** Lines written since the capture began (drained or not). */
  total = 0;

  write(line: string): void {
    this.lines.push(line);
    this.total += 1;
  }

  /** The lines written since the last drain; they are forgotten. */
  drain(): string[] {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }
}

/** Each secret found in a line, with the line (shortened) that carried it. */
export function secretsInLines(lines: string[], secrets: string[], where = 'logged in'): string[] {
  const found: string[] = [];
  for (const line of lines) {
    for (const secret of secrets) {
      if (secret && line.includes(secret))
        found.push(`${secret.slice(0, 12)}… ${where}: ${line.slice(0, 300)}`);
    }
  }
  return found;
}
