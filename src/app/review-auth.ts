import type { Request } from 'express';
import { reviewerAuthenticator } from '../accounts';
import { type AdminAuth, adminTokenCheck, adminTokenRefusal } from '../auth/admin-auth';
import { bearerToken } from '../auth/bearer';
import type { AppContext } from '../common/context';

/** A compact JWT (three base64url parts): an ID token. */
const ID_TOKEN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * The review routes of the operator API (the pending reviews, a review, the decisions) take the
 * operator's ADMIN_TOKEN, or the ID token of a console user an operator marked as reviewer
 * (docs/console.md "The review queue"). An ID token that does not verify is a 401; one of a console
 * user who is not a reviewer is a 403. Every other operator route takes ADMIN_TOKEN only.
 */
export function operatorOrReviewerAuthenticator(ctx: AppContext) {
  const isAdminToken = adminTokenCheck(ctx.config.adminToken);
  const reviewerOf = reviewerAuthenticator(ctx);
  return async (req: Request): Promise<AdminAuth> => {
    const token = bearerToken(req, "ADMIN_TOKEN or a reviewer's ID token");
    if (isAdminToken(token)) return { operator: true };
    if (!ID_TOKEN.test(token)) throw adminTokenRefusal(ctx.config.adminToken);
    return { operator: true, reviewer: await reviewerOf(token) };
  };
}
