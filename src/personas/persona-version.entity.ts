import { EntitySchema } from '@mikro-orm/core';
import type { PersonaManifest } from './manifest';

/**
 * One approved version of a persona (docs/personas.md "Versions"): the manifest as the operator
 * approved it, numbered 1, 2, … per persona. Written once, in the transaction that records the
 * approval, and never changed; deleted with its persona. Sessions name the version they run.
 */
export class PersonaVersion {
  personaId!: string;
  version!: number;
  manifest!: PersonaManifest;
  approvedAt!: Date;
  /** The review that approved it (`review-<persona id>-<n>`); null for versions frozen by the migration without one. */
  reviewId?: string | null;
}

export const PersonaVersionSchema = new EntitySchema<PersonaVersion>({
  class: PersonaVersion,
  tableName: 'persona_versions',
  properties: {
    personaId: { type: 'string', length: 40, primary: true },
    version: { type: 'integer', primary: true },
    manifest: { type: 'json', columnType: 'jsonb' },
    approvedAt: { type: 'Date', columnType: 'timestamptz' },
    reviewId: { type: 'string', length: 160, nullable: true },
  },
});
