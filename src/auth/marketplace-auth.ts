import type { Request } from 'express';
import { z } from 'zod';
import { unauthorized } from '../http/errors';

/**
 * Marketplace identities arrive as headers set by a trusted gateway (which authenticates the user or
 * publisher); the service must never be exposed without one in front of it.
 */
const headerValue = z.string().trim().min(1).max(128);

export const MarketplaceUserHeaders = z.object({
  'x-user-id': headerValue.meta({ description: 'User id, set by the trusted gateway' }),
});
export const MarketplacePublisherHeaders = z.object({
  'x-publisher-id': headerValue.meta({ description: 'Publisher id, set by the trusted gateway' }),
  'x-publisher-name': headerValue.meta({ description: 'Publisher display name, set by the trusted gateway' }),
});

export interface MarketplaceUser {
  userId: string;
}
export interface MarketplacePublisher {
  publisherId: string;
  publisherName: string;
}

export function authenticateMarketplaceUser(req: Request): MarketplaceUser {
  const parsed = MarketplaceUserHeaders.safeParse(req.headers);
  if (!parsed.success) throw unauthorized('Missing x-user-id header');
  return { userId: parsed.data['x-user-id'] };
}

export function authenticateMarketplacePublisher(req: Request): MarketplacePublisher {
  const parsed = MarketplacePublisherHeaders.safeParse(req.headers);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join('.')).join(' and ');
    throw unauthorized(`Missing or empty ${missing} header`);
  }
  return { publisherId: parsed.data['x-publisher-id'], publisherName: parsed.data['x-publisher-name'] };
}
