import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { unauthorized } from '../http/errors';
import { bearerToken } from './bearer';

export interface AdminAuth {
  operator: true;
  /**
   * Set when the caller is not the ADMIN_TOKEN holder but a console user an operator marked as
   * reviewer (their ID token): only the review routes take one (docs/console.md "The review queue").
   */
  reviewer?: { accountId: string; email: string | null };
}

/** Whether a token is ADMIN_TOKEN (constant-time compare); always false when it is unset. */
export function adminTokenCheck(adminToken: string | undefined): (token: string) => boolean {
  const expected = adminToken ? createHash('sha256').update(adminToken).digest() : undefined;
  return (token) => {
    if (!expected) return false;
    return timingSafeEqual(createHash('sha256').update(token).digest(), expected);
  };
}

/** What a token that is not ADMIN_TOKEN is told. */
export const adminTokenRefusal = (adminToken: string | undefined) =>
  adminToken
    ? unauthorized('Invalid admin token')
    : unauthorized('The admin API is disabled: ADMIN_TOKEN is not configured');

/** Operators authenticate with ADMIN_TOKEN (constant-time compare); unset means the admin API is closed. */
export function adminAuthenticator(adminToken: string | undefined) {
  const isAdminToken = adminTokenCheck(adminToken);
  return (req: Request): AdminAuth => {
    const token = bearerToken(req, 'ADMIN_TOKEN');
    if (!isAdminToken(token)) throw adminTokenRefusal(adminToken);
    return { operator: true };
  };
}
