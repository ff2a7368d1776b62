/** `{{secrets.NAME}}` placeholders in header values and other strings a developer configures. */
const PLACEHOLDER = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/** Every secret name referenced by `values`. */
export function secretNamesIn(values: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const value of values) for (const m of value.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

/** Replaces each placeholder with its value (every name must be in `secrets`: see resolveSecrets). */
export function renderSecrets(value: string, secrets: Map<string, string>): string {
  return value.replace(PLACEHOLDER, (_, name: string) => secrets.get(name) ?? '');
}

export function renderSecretHeaders(
  headers: Record<string, string> | undefined,
  secrets: Map<string, string>,
): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, renderSecrets(v, secrets)]));
}

/** Removes secret values from text bound for responses, logs or events (an upstream may echo them). */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const value of secrets) if (value.length >= 4) out = out.split(value).join('[secret]');
  return out;
}
