import type { Request } from 'express';
import { unauthorized } from '../http/errors';

/** The token of an `Authorization: Bearer <token>` header, or a 401 naming what is wrong. */
export function bearerToken(req: Request, what: string): string {
  const header = req.headers.authorization;
  if (!header) throw unauthorized(`Missing Authorization header: send "Authorization: Bearer <${what}>"`);
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized(`Malformed Authorization header: expected "Bearer <${what}>"`);
  return match[1];
}
