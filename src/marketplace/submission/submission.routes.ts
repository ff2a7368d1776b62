import type { AdminAuth } from '../../auth/admin-auth';
import type { MarketplacePublisher } from '../../auth/marketplace-auth';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { PublisherItemDetail } from '../publisher/publisher.schemas';
import { getPublisherItemForAdmin } from '../publisher/publisher.service';
import { validateSubmission } from './manifest-check';
import { decideMarketplaceReview } from './review.service';
import {
  ItemIdParams,
  MarketplaceDecisionBody,
  SubmitBody,
  Submitted,
  UpdateBody,
  ValidateBody,
  Validation,
} from './submission.schemas';
import { submitItem, updateItem } from './submission.service';

export function mountSubmissionRoutes(publisher: ApiRoot<MarketplacePublisher>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  publisher
    .route({
      method: 'post',
      path: '/publisher/submit',
      summary: 'Submit a tool or agent for review',
      description:
        'A manifest whose publisher.id is not the x-publisher-id header → 403; a manifest breaking any rule → 400 naming every problem; a taken id → 409. Starts the review workflow `review-<id>-<version>` (automated checks, then an operator decision; review takes 2-5 business days) and answers with the checks’ findings in `reviewNotes`.',
      body: SubmitBody,
      success: { description: 'Submitted, pending review', schema: Submitted },
      handler: ({ auth, body }) => submitItem(ctx, em(), auth, body),
    })
    .route({
      method: 'post',
      path: '/publisher/validate',
      summary: 'Check a manifest without submitting it',
      description:
        'Every problem submit (or, with `itemId`, PUT /publisher/:id) would report, as a list, and the warnings the review would note; nothing is stored. Always 200 (404 only for an `itemId` that is not yours). The console validates its publish form with it as you type.',
      body: ValidateBody,
      success: { description: 'The problems and warnings', schema: Validation },
      handler: ({ auth, body }) => validateSubmission(ctx, em(), auth, body),
    })
    .route({
      method: 'put',
      path: '/publisher/:id',
      summary: 'Submit a new version of an item',
      description:
        'The version must be greater than the latest submitted (else 409). An approved item stays `approved` and keeps serving its approved version while the new one is reviewed; a rejected new version leaves the approved one live. A version still under review is withdrawn.',
      params: ItemIdParams,
      body: UpdateBody,
      success: { description: 'The new version, pending review', schema: Submitted },
      handler: ({ auth, params, body }) => updateItem(ctx, em(), auth, params.id, body),
    });
}

export function mountSubmissionAdminRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin.route({
    method: 'post',
    path: '/marketplace/items/:id/review',
    summary: "Decide a marketplace item's review",
    description:
      'Decides the version under review (listed in GET /api/admin/reviews), sent to its review workflow as the Workflow Update `decide`. 409 when no version is under review, or while its automated checks still run.',
    params: ItemIdParams,
    body: MarketplaceDecisionBody,
    success: { description: 'The item after the decision, with every version', schema: PublisherItemDetail },
    handler: async ({ params, body }) => {
      await decideMarketplaceReview(ctx, ctx.orm.em, params.id, body);
      return getPublisherItemForAdmin(ctx.orm.em.fork(), params.id);
    },
  });
}
