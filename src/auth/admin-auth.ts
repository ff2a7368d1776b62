import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { unauthorized } from '../http/errors';
import { bearerToken } from './bearer';

export interface AdminAuth {
  operator: true;
}

/** Operators authenticate with ADMIN_TOKEN (constant-time compare); unset means the admin API is closed. */
export function adminAuthenticator(adminToken: string | undefined) {
  const expected = adminToken ? createHash('sha256').update(adminToken).digest() : undefined;
  return (req: Request): AdminAuth => {
    const token = bearerToken(req, 'ADMIN_TOKEN');
    if (!expected) throw unauthorized('The admin API is disabled: ADMIN_TOKEN is not configured');
    const given = createHash('sha256').update(token).digest();
    if (!timingSafeEqual(given, expected)) throw unauthorized('Invalid admin token');
    return { operator: true };
  };
}
