import { z } from 'zod';
import { REVIEW_DECISIONS } from '../../reviews';
import { MANIFEST_RULES } from '../items/manifest';
import { ITEM_STATUSES, ITEM_TYPES } from '../items/statuses';

const RULES = MANIFEST_RULES.map((r) => `- ${r}`).join('\n');

const manifest = z.record(z.string(), z.unknown()).meta({
  description: `A tool or agent manifest (components MarketplaceToolManifest, MarketplaceAgentManifest). Every problem is reported at once in \`validationErrors\`:\n${RULES}`,
});

export const SubmitBody = z
  .strictObject({ type: z.enum(ITEM_TYPES), manifest })
  .meta({ id: 'MarketplaceSubmitRequest' });
export type SubmitInput = z.infer<typeof SubmitBody>;

export const UpdateBody = z.strictObject({ manifest }).meta({ id: 'MarketplaceUpdateRequest' });
export type UpdateInput = z.infer<typeof UpdateBody>;

export const ValidateBody = z
  .strictObject({
    type: z.enum(ITEM_TYPES),
    manifest,
    itemId: z.string().min(1).max(64).optional().meta({
      description:
        'Validate a new version of this item of yours (PUT /publisher/:id); without it, a new submission',
    }),
  })
  .meta({ id: 'MarketplaceValidateRequest' });

export const Validation = z
  .object({
    valid: z.boolean().meta({ description: 'True when submitting it now would be accepted' }),
    validationErrors: z.array(z.string()).meta({
      description:
        'Every problem, as submit would report it (`manifest.<path>: <problem>`), with the publisher check, a taken id and a version not greater than the latest',
    }),
    warnings: z.array(z.string()).meta({ description: 'What the review would note without refusing it' }),
  })
  .meta({ id: 'MarketplaceValidation' });

export const ItemIdParams = z.object({ id: z.string().min(1).max(64) });

export const Submitted = z
  .object({
    success: z.literal(true),
    itemId: z.string(),
    status: z.enum(ITEM_STATUSES).meta({
      description:
        'Submit: `pending_review`. Update: an approved item stays `approved` (serving its approved version) while the new one is reviewed',
    }),
    version: z.string().meta({ description: 'The version submitted' }),
    reviewId: z
      .string()
      .meta({ description: 'The review workflow, in the Temporal Web UI: review-<id>-<version>' }),
    reviewNotes: z.array(z.string()).meta({ description: "The automated checks' findings" }),
    message: z.string(),
  })
  .meta({ id: 'MarketplaceSubmission' });

export const MarketplaceDecisionBody = z
  .strictObject({
    decision: z.enum(REVIEW_DECISIONS),
    notes: z.string().trim().max(2000).optional().meta({ description: 'Shown to the publisher' }),
  })
  .meta({ id: 'MarketplaceReviewDecisionRequest' });
