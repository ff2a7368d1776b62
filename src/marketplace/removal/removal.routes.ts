import { z } from 'zod';
import type { MarketplacePublisher } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { timestamp } from '../../http/envelope';
import { ITEM_STATUSES } from '../items/statuses';
import { ItemIdParams } from '../submission/submission.schemas';
import { removeItem, restoreItem } from './removal.service';

const Removed = z
  .object({
    success: z.literal(true),
    message: z.string(),
    itemId: z.string(),
    status: z.literal('removal_scheduled'),
    removesAt: timestamp().meta({ description: 'Existing installations keep working until then' }),
    activeInstallations: z.number().int(),
    removalId: z.string().meta({ description: 'The removal workflow, in the Temporal Web UI' }),
  })
  .meta({ id: 'MarketplaceRemoval' });

const Restored = z
  .object({
    success: z.literal(true),
    itemId: z.string(),
    status: z.enum(ITEM_STATUSES),
    message: z.string(),
  })
  .meta({ id: 'MarketplaceRestore' });

export function mountRemovalRoutes(publisher: ApiRoot<MarketplacePublisher>, ctx: AppContext): void {
  publisher
    .route({
      method: 'delete',
      path: '/publisher/:id',
      summary: 'Remove an item (self-service, with a grace period)',
      description:
        'At once: out of browse, no new installs. Existing installations keep working for MARKETPLACE_REMOVAL_GRACE_DAYS (30) days, a durable timer in the removal workflow `remove-<id>-<n>`; then they are marked removed and running the item answers 410. Restore undoes it before then.',
      params: ItemIdParams,
      success: { description: 'Scheduled for removal', schema: Removed },
      handler: ({ auth, params }) => removeItem(ctx, ctx.orm.em, auth, params.id),
    })
    .route({
      method: 'post',
      path: '/publisher/:id/restore',
      summary: 'Undo a removal within its grace period',
      description:
        'The item returns to its status before removal. After the grace period, or when not being removed → 409.',
      params: ItemIdParams,
      success: { description: 'Restored', schema: Restored },
      handler: ({ auth, params }) => restoreItem(ctx, ctx.orm.em, auth, params.id),
    });
}
