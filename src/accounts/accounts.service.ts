import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Identity } from '../auth/id-token';
import type { Plan } from '../config/env';
import { notFound } from '../http/errors';
import { Account } from './account.entity';

/** The account of an ID token's issuer and subject, created on first use (safe under concurrent first calls). */
export async function findOrCreateAccount(
  em: EntityManager,
  identity: Identity,
  defaultPlan: Plan,
): Promise<Account> {
  const where = { issuer: identity.issuer, subject: identity.subject };
  let account = await em.findOne(Account, where);
  if (!account) {
    try {
      account = em.create(Account, { ...where, email: identity.email, plan: defaultPlan });
      await em.flush();
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      em.clear();
      account = await em.findOneOrFail(Account, where);
    }
  } else if (identity.email && identity.email !== account.email) {
    account.email = identity.email;
    await em.flush();
  }
  return account;
}

export async function setAccountPlan(em: EntityManager, accountId: string, plan: Plan): Promise<Account> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw notFound('Account');
  account.plan = plan;
  await em.flush();
  return account;
}

/** An account's plan, as a statement another area's query can embed (the accounts table is this area's). */
export function accountPlanQuery(accountId: string): { sql: string; bindings: unknown[] } {
  return { sql: 'select plan from accounts where id = ?', bindings: [accountId] };
}
