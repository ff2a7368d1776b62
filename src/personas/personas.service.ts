import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import type { Config } from '../config/env';
import { conflict, notFound, validationFailed } from '../http/errors';
import { Review, reviewId } from '../reviews';
import { findCatalogVoice } from '../voices';
import { type PersonaManifest, type ValidationResult, validatePersonaManifest } from './manifest';
import { providerReferencesOf } from './manifest-providers';
import { Persona } from './persona.entity';
import type { PersonaView } from './personas.schemas';
import { EDITABLE_STATUSES } from './statuses';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function listEntry(p: Persona) {
  return {
    id: p.id,
    name: p.name,
    tagline: p.tagline,
    status: p.status,
    category: p.category,
    tools: p.manifest.tools ?? [],
    knowledgeBases: p.manifest.knowledge?.bases ?? [],
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** The last decided review of a persona (notes, time and decision), or null. */
async function lastReview(em: EntityManager, personaId: string): Promise<PersonaView['review']> {
  const review = await em.findOne(
    Review,
    { kind: 'persona', subjectId: personaId, status: { $in: ['approved', 'rejected'] } },
    { orderBy: { decidedAt: 'desc' } },
  );
  if (!review?.decidedAt) return null;
  return {
    decision: review.status as 'approved' | 'rejected',
    notes: review.notes ?? null,
    decidedAt: review.decidedAt.toISOString(),
    tests: review.tests ?? null,
  };
}

/** The review of the current submission while the persona is `submitted` (with its tests so far), or null. */
async function pendingReview(em: EntityManager, p: Persona): Promise<PersonaView['pendingReview']> {
  if (p.status !== 'submitted') return null;
  const review = await em.findOne(Review, { id: reviewId(p.id, p.submissions), status: 'pending' });
  if (!review) return null;
  return {
    submittedAt: review.submittedAt.toISOString(),
    dueBy: review.dueBy.toISOString(),
    tests: review.tests ?? null,
  };
}

export async function personaView(em: EntityManager, p: Persona): Promise<PersonaView> {
  return {
    ...listEntry(p),
    manifest: p.manifest,
    version: p.version,
    review: await lastReview(em, p.id),
    pendingReview: await pendingReview(em, p),
    submittedAt: iso(p.submittedAt),
    publishedAt: iso(p.publishedAt),
    liveVersion: p.liveVersion ?? null,
  };
}

/** The copies of manifest fields kept in columns (lists, slug uniqueness). */
function derived(manifest: PersonaManifest) {
  return {
    slug: manifest.identity?.id ?? null,
    name: manifest.identity?.name ?? '',
    tagline: manifest.identity?.tagline ?? '',
    category: manifest.knowledge?.category ?? '',
  };
}

/** One of the account's personas (another account's is "not found"), locked when `lock` inside a transaction. */
export async function findPersona(
  em: EntityManager,
  accountId: string,
  id: string,
  lock = false,
): Promise<Persona> {
  const persona = await em.findOne(
    Persona,
    { id, account: accountId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!persona) throw notFound('Persona');
  return persona;
}

export async function listPersonas(em: EntityManager, accountId: string) {
  const personas = await em.find(
    Persona,
    { account: accountId },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return personas.map(listEntry);
}

/**
 * 400 `VALIDATION_FAILED` naming each problem with the manifest's `tools` (docs/personas.md "Tools"):
 * a tool, server or installation that is not the account's, one named twice, two offered under one name.
 */
export async function refuseUnofferableTools(
  ctx: Pick<AppContext, 'references'>,
  em: EntityManager,
  accountId: string,
  manifest: PersonaManifest,
): Promise<void> {
  const problems = [
    ...(await ctx.references.personaTools(em, accountId, manifest.tools ?? [])),
    ...(await ctx.references.providers(em, accountId, providerReferencesOf(manifest))),
    ...(await ctx.references.knowledgeBases(em, accountId, manifest.knowledge?.bases ?? [])),
  ];
  if (problems.length > 0) {
    throw validationFailed(
      problems.map((p) => `manifest.${p}`),
      'The manifest names tools, providers or knowledge bases its agent cannot use',
    );
  }
}

export async function createPersona(em: EntityManager, accountId: string, manifest: PersonaManifest) {
  const persona = em.create(Persona, { account: accountId, manifest, ...derived(manifest) });
  await em.persistAndFlush(persona);
  return personaView(em, persona);
}

export async function getPersona(em: EntityManager, accountId: string, id: string) {
  return personaView(em, await findPersona(em, accountId, id));
}

export function refuseUnlessEditable(persona: Persona, action: string): void {
  if (!EDITABLE_STATUSES.includes(persona.status)) {
    throw conflict(
      `Persona ${persona.id} is ${persona.status}; only draft and rejected personas can be ${action}` +
        (persona.status === 'published' ? ' (revise it to edit a new version, or unpublish it)' : ''),
    );
  }
}

/** PUT: replaces the manifest of a draft or rejected persona (which stays rejected until resubmitted). */
export async function updatePersona(
  em: EntityManager,
  accountId: string,
  id: string,
  manifest: PersonaManifest,
) {
  const persona = await em.transactional(async (tem) => {
    const p = await findPersona(tem, accountId, id, true);
    refuseUnlessEditable(p, 'updated');
    tem.assign(p, { manifest, ...derived(manifest), version: p.version + 1 });
    return p;
  });
  return personaView(em, persona);
}

/** The validation rules applied to a persona's manifest, with the account's other slugs and the voice catalog. */
export async function validatePersona(
  em: EntityManager,
  config: Pick<Config, 'voices'>,
  persona: Persona,
): Promise<ValidationResult> {
  const slug = persona.manifest.identity?.id;
  const taken =
    slug !== undefined &&
    (await em.count(Persona, { account: persona.account, slug, id: { $ne: persona.id } })) > 0;
  return validatePersonaManifest(persona.manifest, {
    slugTaken: () => taken,
    findVoice: (voiceId) => findCatalogVoice(voiceId, config),
  });
}

/** Live keys may start sessions with it: it has a live version, or was published without versions. */
export const isLive = (p: Persona) => p.liveVersion != null || p.status === 'published';

/**
 * POST /personas/:id/unpublish: a live persona stops serving live keys (no live version); a published
 * working copy goes back to draft, an open revision stays as it is. Its versions are kept.
 */
export async function unpublishPersona(em: EntityManager, accountId: string, id: string) {
  const persona = await em.transactional(async (tem) => {
    const p = await findPersona(tem, accountId, id, true);
    if (!isLive(p)) {
      throw conflict(`Persona ${p.id} is ${p.status}; only published personas can be unpublished`);
    }
    tem.assign(p, {
      status: p.status === 'published' ? 'draft' : p.status,
      publishedAt: null,
      liveVersion: null,
    });
    return p;
  });
  return personaView(em, persona);
}
