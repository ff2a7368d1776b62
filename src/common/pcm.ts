/** The samples of `parts`, one after another (the one part itself when there is one). */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  if (parts.length === 1) return parts[0]!;
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}
