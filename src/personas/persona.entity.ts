import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import { ownerAccountProperty, timestampProperties } from '../db/entity-properties';
import type { PersonaManifest } from './manifest';
import type { PersonaStatus } from './statuses';

/**
 * A persona (`persona_…`): the voice agent a caller talks to, owned by an account (not by an
 * environment: a `pk_test_` key may run any of the account's personas, a `pk_live_` key only
 * published ones). `slug`, `name`, `tagline` and `category` are copies of manifest fields, kept for
 * lists and the slug's uniqueness check.
 */
export class Persona {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'version'
    | 'submissions'
    | 'slug'
    | 'submittedAt'
    | 'publishedAt'
    | 'liveVersion'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('persona');
  account!: string;
  status: PersonaStatus = 'draft';
  manifest!: PersonaManifest;
  slug?: string | null;
  name!: string;
  tagline!: string;
  category!: string;
  /** 1 at creation, +1 on every update. */
  version = 1;
  /** How many times it was submitted; the current review is `review-<id>-<submissions>`. */
  submissions = 0;
  submittedAt?: Date | null;
  publishedAt?: Date | null;
  /**
   * The approved version `pk_live_` sessions run (docs/personas.md "Versions"); null while the persona
   * was never approved or after it is unpublished. `status` and `manifest` are the working copy's.
   */
  liveVersion?: number | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const PersonaSchema = new EntitySchema<Persona>({
  class: Persona,
  tableName: 'personas',
  properties: {
    id: { type: 'string', primary: true, length: 40 },
    account: ownerAccountProperty(),
    status: { type: 'string', length: 16 },
    manifest: { type: 'json', columnType: 'jsonb' },
    slug: { type: 'string', length: 200, nullable: true },
    name: { type: 'string', length: 500 },
    tagline: { type: 'string', length: 1000 },
    category: { type: 'string', length: 100 },
    version: { type: 'integer' },
    submissions: { type: 'integer' },
    submittedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    publishedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    liveVersion: { type: 'integer', nullable: true },
    ...timestampProperties(),
  },
});

/**
 * The manifest of the persona whose id is the SQL expression `personaId` (null if it was deleted): a
 * subquery for a statement that reads it with other rows, owned here because the table is this area's.
 */
export const personaManifestSql = (personaId: string) =>
  `(select p.manifest from personas p where p.id = ${personaId})`;
