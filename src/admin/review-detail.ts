import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { notFound } from '../http/errors';
import { MarketplaceItemVersion } from '../marketplace';
import { Persona, PersonaVersion } from '../personas';
import { Review, ReviewViewSchema, reviewView } from '../reviews';

const ReviewParams = z.object({
  id: z
    .string()
    .min(1)
    .max(160)
    .regex(/^review-/, 'must be a review id (`review-<subject id>-<submission>`)')
    .meta({ description: 'The review id, which is its workflow id (`workflowId` of GET /reviews)' }),
});

const Manifest = z.record(z.string(), z.unknown());

export const ReviewDetailSchema = z
  .object({
    review: ReviewViewSchema,
    manifest: Manifest.nullable().meta({
      description:
        "What was submitted: a persona's manifest (the version the review approved, once approved) or the marketplace version's manifest; null when the persona was deleted",
    }),
    version: z
      .string()
      .nullable()
      .meta({ description: 'The marketplace version under review; null for a persona' }),
    checks: z
      .object({
        passed: z.boolean().nullable().meta({ description: 'null while the automated checks run' }),
        findings: z.array(z.string()).meta({ description: "The automated checks' findings" }),
      })
      .nullable()
      .meta({
        description: "A marketplace version's automated checks; null for a persona (see `review.tests`)",
      }),
  })
  .meta({ id: 'ReviewDetail' });
type ReviewDetail = z.input<typeof ReviewDetailSchema>;

async function personaSubject(em: EntityManager, review: Review): Promise<ReviewDetail['manifest']> {
  if (review.status === 'approved') {
    const approved = await em.findOne(PersonaVersion, { personaId: review.subjectId, reviewId: review.id });
    if (approved) return approved.manifest as unknown as Record<string, unknown>;
  }
  const persona = await em.findOne(Persona, { id: review.subjectId }, { fields: ['id', 'manifest'] });
  return persona ? (persona.manifest as unknown as Record<string, unknown>) : null;
}

/**
 * GET /api/admin/reviews/:id: one review, pending or decided, with what it reviews: the submitted
 * manifest, a persona's test results (`review.tests`) or a marketplace version's automated checks.
 */
export async function reviewDetail(em: EntityManager, id: string): Promise<ReviewDetail> {
  const review = await em.findOne(Review, { id });
  if (!review) throw notFound('Review');
  if (review.kind === 'persona') {
    return {
      review: reviewView(review),
      manifest: await personaSubject(em, review),
      version: null,
      checks: null,
    };
  }
  const version = await em.findOne(MarketplaceItemVersion, { reviewId: review.id });
  return {
    review: reviewView(review),
    manifest: version ? (version.manifest as unknown as Record<string, unknown>) : null,
    version: version?.version ?? null,
    checks: version ? { passed: version.checksPassed ?? null, findings: version.reviewNotes } : null,
  };
}

export function mountReviewDetailRoutes(reviews: ApiRoot<AdminAuth>, ctx: AppContext): void {
  reviews.route({
    method: 'get',
    path: '/reviews/:id',
    summary: 'One review, with what it reviews',
    description:
      "The review (pending or decided, with its due time, overdue mark and outcome), the manifest submitted, and its automated results: a persona's test suite (`review.tests`) or a marketplace version's checks (`checks`). The console's review queue shows it.",
    params: ReviewParams,
    success: { description: 'The review', schema: ReviewDetailSchema },
    handler: ({ params }) => reviewDetail(ctx.orm.em.fork(), params.id),
  });
}
