import type { AdminAuth } from '../../auth/admin-auth';
import type { MarketplacePublisher } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { ItemIdParams } from '../submission/submission.schemas';
import { itemAnalytics } from './analytics.service';
import {
  AnalyticsQuery,
  ItemAnalytics,
  PublisherIdParams,
  PublisherItemDetail,
  PublisherItems,
  PublisherProfile,
  VerificationBody,
  VerificationResult,
} from './publisher.schemas';
import {
  getPublisherItem,
  getPublisherItemForAdmin,
  listPublisherItems,
  publisherProfile,
  setPublisherVerification,
} from './publisher.service';

/** The publisher's own views. Mounted before the `/publisher/:id` routes, so `items` and `profile` win. */
export function mountPublisherRoutes(publisher: ApiRoot<MarketplacePublisher>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  publisher
    .route({
      method: 'get',
      path: '/publisher/items',
      summary: 'Your items',
      success: { description: 'Every item you submitted, newest first', schema: PublisherItems },
      handler: ({ auth }) => listPublisherItems(em(), auth.publisherId),
    })
    .route({
      method: 'get',
      path: '/publisher/profile',
      summary: 'Your publisher profile and exact item counts',
      success: { description: 'The profile', schema: PublisherProfile },
      handler: ({ auth }) => publisherProfile(em(), auth),
    })
    .route({
      method: 'get',
      path: '/publisher/:id',
      summary: 'One of your items, with every version and its review findings',
      params: ItemIdParams,
      success: { description: 'The item', schema: PublisherItemDetail },
      handler: ({ auth, params }) => getPublisherItem(em(), auth.publisherId, params.id),
    })
    .route({
      method: 'get',
      path: '/publisher/:id/analytics',
      summary: "An item's installs, runs, errors and revenue",
      description:
        'From the metering records: `period` 7d, 30d (default) or 90d ending now. Another publisher’s item → 404.',
      params: ItemIdParams,
      query: AnalyticsQuery,
      success: { description: 'The analytics', schema: ItemAnalytics },
      handler: ({ auth, params, query }) => itemAnalytics(em(), auth.publisherId, params.id, query.period),
    });
}

export function mountPublisherAdminRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin
    .route({
      method: 'put',
      path: '/publishers/:id/verification',
      summary: 'Verify a marketplace publisher (or withdraw it)',
      description:
        'Its items show `verified` and `trustLevel: verified` (else `community`). An unknown publisher → 404.',
      params: PublisherIdParams,
      body: VerificationBody,
      success: { description: 'The publisher', schema: VerificationResult },
      handler: ({ params, body }) => setPublisherVerification(ctx.orm.em.fork(), params.id, body.verified),
    })
    .route({
      method: 'get',
      path: '/marketplace/items/:id',
      summary: 'Any marketplace item, with every version and its review findings',
      params: ItemIdParams,
      success: { description: 'The item', schema: PublisherItemDetail },
      handler: ({ params }) => getPublisherItemForAdmin(ctx.orm.em.fork(), params.id),
    });
}
