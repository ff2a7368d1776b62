import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { compare } from 'fast-json-patch';
import type { Environment } from '../common/owner';
import { emitEvent } from '../events/emit';
import { conflict, notFound } from '../http/errors';
import type { Review } from '../reviews';
import type { PersonaManifest } from './manifest';
import { Persona } from './persona.entity';
import { PersonaVersion } from './persona-version.entity';
import { findPersona, personaView } from './personas.service';
import type { JsonPatch } from './versions.schemas';

/**
 * Persona versions (docs/personas.md "Versions"). Every approval freezes the approved manifest as the
 * next version and makes it live; `pk_live_` sessions run the live version, pinned at their start,
 * so a rollback or a new approval never changes a session under way. The persona's `status` and
 * `manifest` stay those of its working copy: `revise` reopens it as a draft while the live version
 * goes on serving.
 */

const versionView = (v: PersonaVersion, liveVersion: number | null | undefined) => ({
  version: v.version,
  live: v.version === liveVersion,
  manifest: v.manifest,
  approvedAt: v.approvedAt.toISOString(),
  reviewId: v.reviewId ?? null,
});

async function findVersion(em: EntityManager, personaId: string, version: number): Promise<PersonaVersion> {
  const found = await em.findOne(PersonaVersion, { personaId, version });
  if (!found) throw notFound('Persona version');
  return found;
}

/**
 * The approval of a persona's review, inside the transaction that records it: the submitted working
 * copy becomes `published`, its manifest is frozen as the next version, and that version goes live.
 * A persona no longer under this submission (withdrawn) is left alone.
 */
export async function publishApprovedPersona(tem: EntityManager, review: Review, at: Date): Promise<void> {
  const persona = await tem.findOne(
    Persona,
    { id: review.subjectId, status: 'submitted', submissions: review.submission },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!persona) return;
  const latest = await tem.findOne(
    PersonaVersion,
    { personaId: persona.id },
    { orderBy: { version: 'desc' }, fields: ['version'] },
  );
  const version = (latest?.version ?? 0) + 1;
  tem.create(PersonaVersion, {
    personaId: persona.id,
    version,
    manifest: persona.manifest,
    approvedAt: at,
    reviewId: review.id,
  });
  tem.assign(persona, { status: 'published', publishedAt: at, liveVersion: version });
}

/** GET /personas/:id/versions: every approved version, newest first, with its manifest. */
export async function listPersonaVersions(em: EntityManager, accountId: string, id: string) {
  const persona = await findPersona(em, accountId, id);
  const versions = await em.find(PersonaVersion, { personaId: id }, { orderBy: { version: 'desc' } });
  return {
    liveVersion: persona.liveVersion ?? null,
    versions: versions.map((v) => versionView(v, persona.liveVersion)),
  };
}

/** GET /personas/:id/versions/diff: the RFC 6902 JSON Patch that turns version `from`'s manifest into `to`'s. */
export async function diffPersonaVersions(
  em: EntityManager,
  accountId: string,
  id: string,
  range: { from: number; to: number },
) {
  await findPersona(em, accountId, id);
  const [from, to] = await Promise.all([findVersion(em, id, range.from), findVersion(em, id, range.to)]);
  // compare() makes only add, remove and replace operations, a subset of what JsonPatch allows
  return { from: from.version, to: to.version, patch: compare(from.manifest, to.manifest) as JsonPatch };
}

/**
 * POST /personas/:id/revise: a published persona's working copy becomes an editable draft again
 * while its live version keeps serving. A live persona whose revision is open already (draft or
 * rejected) answers as it is; one under review, or never approved, is a 409.
 */
export async function revisePersona(em: EntityManager, accountId: string, id: string) {
  const persona = await em.transactional(async (tem) => {
    const p = await findPersona(tem, accountId, id, true);
    if (p.liveVersion == null) {
      throw conflict(
        `Persona ${p.id} is not live; only a published persona is revised (edit its draft instead)`,
      );
    }
    if (p.status === 'submitted') throw conflict(`Persona ${p.id} has a revision under review`);
    if (p.status === 'published') tem.assign(p, { status: 'draft' });
    return p;
  });
  return personaView(em, persona);
}

/**
 * POST /personas/:id/rollback { version }: that approved version goes live at once (sessions already
 * started keep theirs), with `persona.rolled_back` in the live environment. The working copy is not
 * touched. Naming the live version changes nothing and emits nothing.
 */
export async function rollbackPersona(em: EntityManager, accountId: string, id: string, version: number) {
  const persona = await em.transactional(async (tem) => {
    const p = await findPersona(tem, accountId, id, true);
    await findVersion(tem, p.id, version);
    const from = p.liveVersion;
    if (from == null) {
      throw conflict(`Persona ${p.id} is not live (unpublished); submit it to publish it again`);
    }
    if (from === version) return p;
    const at = new Date();
    tem.assign(p, { liveVersion: version });
    emitEvent(tem, {
      accountId,
      environment: 'live',
      type: 'persona.rolled_back',
      personaId: p.id,
      at,
      data: { personaId: p.id, fromVersion: from, toVersion: version, rolledBackAt: at.toISOString() },
    });
    return p;
  });
  return personaView(em, persona);
}

/** What a new session of `environment` runs: the persona, the version it pins (null: the working draft) and its manifest. */
export interface SessionPersona {
  persona: Persona;
  version: number | null;
  manifest: PersonaManifest;
}

const NOT_LIVE =
  'live keys can start sessions only with published personas (use a pk_test_ key to try drafts)';

/**
 * The persona a session starts with. A `pk_live_` key runs the live version (a persona published
 * outside the persona review, a marketplace agent's, has none and runs its manifest); naming another
 * version is a 409. A `pk_test_` key runs the working draft, or any approved version it names.
 */
export async function personaForSession(
  em: EntityManager,
  input: { accountId: string; environment: Environment; personaId: string; version?: number },
): Promise<SessionPersona> {
  const persona = await em.findOne(Persona, { id: input.personaId, account: input.accountId });
  if (!persona) throw notFound('Persona');
  if (input.environment === 'live') {
    const live = persona.liveVersion ?? null;
    if (live === null && persona.status !== 'published') {
      throw conflict(`Persona ${persona.id} is ${persona.status}: ${NOT_LIVE}`);
    }
    if (input.version !== undefined && input.version !== live) {
      throw conflict(
        `Persona ${persona.id} runs version ${live ?? 'unversioned'} on live keys; test other versions with a pk_test_ key`,
      );
    }
    if (live === null) return { persona, version: null, manifest: persona.manifest };
    return { persona, version: live, manifest: (await findVersion(em, persona.id, live)).manifest };
  }
  if (input.version === undefined) return { persona, version: null, manifest: persona.manifest };
  const pinned = await findVersion(em, persona.id, input.version);
  return { persona, version: pinned.version, manifest: pinned.manifest };
}

/**
 * The manifest a session runs, as an SQL expression over the session's persona id and pinned version:
 * the frozen version's when it has one, else the persona's working copy; null if the persona was deleted.
 */
export const sessionManifestSql = (personaId: string, personaVersion: string) =>
  `(select coalesce(v.manifest, p.manifest) from personas p
     left join persona_versions v on v.persona_id = p.id and v.version = ${personaVersion}
     where p.id = ${personaId})`;

/** The manifest a session runs (see sessionManifestSql), or an empty one if the persona was deleted. */
export async function sessionManifest(
  em: EntityManager,
  session: { personaId: string; personaVersion?: number | null },
): Promise<PersonaManifest> {
  if (session.personaVersion != null) {
    const pinned = await em.findOne(PersonaVersion, {
      personaId: session.personaId,
      version: session.personaVersion,
    });
    if (pinned) return pinned.manifest;
  }
  return (await em.findOne(Persona, { id: session.personaId }))?.manifest ?? {};
}
