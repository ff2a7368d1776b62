import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../common/context';
import { forbidden, notFound } from '../http/errors';
import { Account } from './account.entity';

/** A console user an operator marked as reviewer, acting on the review endpoints with their ID token. */
export interface Reviewer {
  accountId: string;
  email: string | null;
}

/** How the operator API shows an account's reviewer mark. */
export interface ReviewerMark {
  publisherId: string;
  email: string | null;
  reviewer: boolean;
  reviewerSince: string | null;
}

const markOf = (account: Account): ReviewerMark => ({
  publisherId: account.id,
  email: account.email ?? null,
  reviewer: Boolean(account.reviewerSince),
  reviewerSince: account.reviewerSince ? account.reviewerSince.toISOString() : null,
});

/**
 * PUT /api/admin/accounts/:publisherId/reviewer: marks (or unmarks) the account's console user as a
 * reviewer. Marking a reviewer again keeps the time of the first mark; an unknown account is a 404.
 */
export async function setAccountReviewer(
  em: EntityManager,
  accountId: string,
  reviewer: boolean,
): Promise<ReviewerMark> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw notFound('Account');
  if (reviewer !== Boolean(account.reviewerSince)) {
    account.reviewerSince = reviewer ? new Date() : null;
    await em.flush();
  }
  return markOf(account);
}

/** GET /api/admin/reviewers: every account marked as reviewer, the earliest mark first. */
export async function listReviewers(em: EntityManager): Promise<ReviewerMark[]> {
  const accounts = await em.find(
    Account,
    { reviewerSince: { $ne: null } },
    { orderBy: { reviewerSince: 'asc', id: 'asc' } },
  );
  return accounts.map(markOf);
}

/** Whether the account is marked as reviewer (GET /me says so, for the console's navigation). */
export async function isReviewer(em: EntityManager, accountId: string): Promise<boolean> {
  const account = await em.fork().findOne(Account, { id: accountId }, { fields: ['id', 'reviewerSince'] });
  return Boolean(account?.reviewerSince);
}

export const NOT_A_REVIEWER =
  'Only operators, and the console users an operator marked as reviewers, may use the review endpoints';

/**
 * The reviewer an ID token belongs to: the token is verified as the console API verifies it (a bad
 * one is a 401), and its account must be marked as reviewer (else a 403). The mark is read on every
 * call, so unmarking takes effect on the next one.
 */
export function reviewerAuthenticator(ctx: Pick<AppContext, 'orm' | 'verifyIdToken'>) {
  return async (idToken: string): Promise<Reviewer> => {
    const identity = await ctx.verifyIdToken(idToken);
    const account = await ctx.orm.em
      .fork()
      .findOne(
        Account,
        { issuer: identity.issuer, subject: identity.subject },
        { fields: ['id', 'email', 'reviewerSince'] },
      );
    if (!account?.reviewerSince) throw forbidden(NOT_A_REVIEWER);
    return { accountId: account.id, email: account.email ?? null };
  };
}
