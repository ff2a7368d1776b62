/** Where providers send the user back to the console after consent (register it at the provider). */
export const consoleOAuthRedirectUri = (): string => `${window.location.origin}/console/tools/oauth/callback`;

/** "a b, c" → ["a", "b", "c"]; undefined when empty. */
export function scopeList(text: string): string[] | undefined {
  const scopes = text.split(/[\s,]+/).filter(Boolean);
  return scopes.length ? scopes : undefined;
}

/** "access_type=offline&prompt=consent" → { access_type: "offline", prompt: "consent" }; undefined when empty. */
export function authorizeParams(text: string): Record<string, string> | undefined {
  const params = Object.fromEntries(new URLSearchParams(text.trim().replace(/^\?/, '')));
  return Object.keys(params).length ? params : undefined;
}
