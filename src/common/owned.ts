import { type EntityClass, type EntityManager, type FilterQuery, LockMode } from '@mikro-orm/postgresql';
import type { Plan } from '../config/env';
import { notFound, planLimitReached } from '../http/errors';
import type { Owner } from './owner';

/** A page of a list: `limit` and `offset` as the list queries give them. */
export interface Page {
  limit: number;
  offset: number;
}

interface OwnedEntity {
  id: string;
  account: string;
  environment: string;
  createdAt: Date;
}

const ownedBy = (owner: Owner) => ({ account: owner.accountId, environment: owner.environment });

/** One of the owner's resources, or 404 (another account's or environment's resource is "not found"). */
export async function findOwned<T extends OwnedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  owner: Owner,
  id: string,
  what: string,
  /** `lock`: read it FOR UPDATE (inside a transaction): concurrent changes of one row queue behind it. */
  opts: { lock?: boolean } = {},
): Promise<T> {
  const found = await em.findOne(
    entity,
    { id, ...ownedBy(owner) } as FilterQuery<T>,
    opts.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!found) throw notFound(what);
  return found as T;
}

/**
 * Deletes one of the owner's resources, or 404. Read FOR UPDATE in the deleting transaction, so of
 * concurrent deletes one deletes it and the others, which waited on its row, find nothing (404).
 */
export async function deleteOwned<T extends OwnedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  owner: Owner,
  id: string,
  what: string,
): Promise<T> {
  return em.transactional(async (tem) => {
    const found = await findOwned(tem, entity, owner, id, what, { lock: true });
    tem.remove(found);
    return found;
  });
}

/** A page of the owner's resources, newest first, with the total. */
export async function listOwned<T extends OwnedEntity>(
  em: EntityManager,
  entity: EntityClass<T>,
  owner: Owner,
  page: Page,
  where: Record<string, unknown> = {},
): Promise<{ items: T[]; total: number }> {
  const [items, total] = await em.findAndCount(entity, { ...ownedBy(owner), ...where } as FilterQuery<T>, {
    orderBy: { createdAt: 'desc', id: 'desc' } as never,
    limit: page.limit,
    offset: page.offset,
  });
  return { items: items as T[], total };
}

/**
 * Refuses a new resource beyond the plan's limit (null = unlimited). Inside the creating
 * transaction, with a per-owner advisory lock, so concurrent creations cannot pass it together.
 */
export async function enforcePlanLimit(
  tem: EntityManager,
  entity: EntityClass<OwnedEntity>,
  owner: Owner & { plan: Plan },
  limit: number | null,
  what: string,
): Promise<void> {
  if (limit === null) return;
  await tem
    .getConnection()
    .execute(
      'select pg_advisory_xact_lock(hashtext(?))',
      [`${what}:${owner.accountId}:${owner.environment}`],
      'all',
      tem.getTransactionContext(),
    );
  const count = await tem.count(entity, ownedBy(owner) as FilterQuery<OwnedEntity>);
  if (count >= limit)
    throw planLimitReached(`The ${owner.plan} plan allows ${limit} ${what}; delete one or upgrade`);
}
