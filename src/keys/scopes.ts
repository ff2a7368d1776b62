/**
 * Scopes (docs/api-contract.md "Scopes"): `<area>:read` and `<area>:write` per area (`phone`: phone
 * numbers; `providers`: the account's model, speech-to-text and voice providers; `knowledge`:
 * knowledge bases), plus
 * `workflows:execute`, and `tests:read` / `tests:run` (agent tests: docs/personas.md "Testing an agent").
 */
export const SCOPE_AREAS = [
  'mcp',
  'tools',
  'webhooks',
  'workflows',
  'activities',
  'oauth',
  'secrets',
  'sessions',
  'phone',
  'providers',
  'knowledge',
] as const;
export const ALL_SCOPES = [
  ...SCOPE_AREAS.flatMap((area) => [`${area}:read`, `${area}:write`]),
  'workflows:execute',
  'tests:read',
  'tests:run',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];
