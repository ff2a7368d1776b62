/**
 * A persona's lifecycle (docs/api-contract.md "Persona statuses"): draft → submitted → published | rejected;
 * published → draft by unpublishing.
 */
export const PERSONA_STATUSES = ['draft', 'submitted', 'published', 'rejected'] as const;
export type PersonaStatus = (typeof PERSONA_STATUSES)[number];

/** Statuses in which the manifest may be edited and the persona submitted. */
export const EDITABLE_STATUSES: readonly PersonaStatus[] = ['draft', 'rejected'];
