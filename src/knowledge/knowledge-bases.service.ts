import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteOwned, findOwned, listOwned, type Page } from '../common/owned';
import type { Owner } from '../common/owner';
import { KnowledgeBase } from './knowledge.entity';
import type { CreateKnowledgeBaseInput, UpdateKnowledgeBaseInput } from './knowledge.schemas';

export function knowledgeBaseView(kb: KnowledgeBase) {
  return {
    id: kb.id,
    name: kb.name,
    description: kb.description,
    language: kb.language,
    createdAt: kb.createdAt.toISOString(),
    updatedAt: kb.updatedAt.toISOString(),
  };
}

export const findKnowledgeBase = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, KnowledgeBase, owner, id, 'Knowledge base');

export async function createKnowledgeBase(em: EntityManager, owner: Owner, input: CreateKnowledgeBaseInput) {
  const kb = em.create(KnowledgeBase, {
    account: owner.accountId,
    environment: owner.environment,
    name: input.name,
    description: input.description ?? null,
    language: input.language,
  });
  await em.persistAndFlush(kb);
  return knowledgeBaseView(kb);
}

export async function listKnowledgeBases(em: EntityManager, owner: Owner, page: Page) {
  const { items, total } = await listOwned(em, KnowledgeBase, owner, page);
  return { data: items.map(knowledgeBaseView), total };
}

/** PUT: its name, description and language (a missing `description` clears it). */
export async function updateKnowledgeBase(
  em: EntityManager,
  owner: Owner,
  id: string,
  input: UpdateKnowledgeBaseInput,
) {
  const kb = await em.transactional(async (tem) => {
    const found = await findOwned(tem, KnowledgeBase, owner, id, 'Knowledge base', { lock: true });
    tem.assign(found, {
      name: input.name,
      description: input.description ?? null,
      ...(input.language ? { language: input.language } : {}),
    });
    return found;
  });
  return knowledgeBaseView(kb);
}

/** DELETE: the base, its sources, their content and chunks (the foreign keys cascade), in one transaction. */
export async function deleteKnowledgeBase(em: EntityManager, owner: Owner, id: string) {
  await deleteOwned(em, KnowledgeBase, owner, id, 'Knowledge base');
  return { deleted: true as const, id };
}

/**
 * The problems with a persona's `knowledge.bases` (none: it may be saved), as `"knowledge.bases.i: …"`
 * lines: each must be a base of the account (either environment), named once.
 */
export async function personaBaseProblems(
  em: EntityManager,
  accountId: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await em.find(
    KnowledgeBase,
    { account: accountId, id: { $in: [...ids] } },
    { fields: ['id'] },
  );
  const known = new Set(found.map((kb) => kb.id));
  const problems: string[] = [];
  ids.forEach((id, i) => {
    if (!known.has(id)) problems.push(`knowledge.bases.${i}: no knowledge base ${id} in this account`);
    else if (ids.indexOf(id) !== i) problems.push(`knowledge.bases.${i}: ${id} is named twice`);
  });
  return problems;
}
