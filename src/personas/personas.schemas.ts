import { z } from 'zod';
import { timestamp } from '../http/envelope';
import { REVIEW_DECISIONS, ReviewTestsSchema } from '../reviews';
import { PERSONA_CATEGORIES, PERSONA_RULES, PersonaManifestSchema } from './manifest';
import { PersonaToolRefSchema } from './manifest-tools';
import { PERSONA_STATUSES } from './statuses';

export const PersonaIdParams = z.object({ id: z.string().min(1).max(64) });

export const PersonaManifestBody = z
  .strictObject({ manifest: PersonaManifestSchema })
  .meta({ id: 'PersonaManifestRequest' });
export type PersonaManifestInput = z.infer<typeof PersonaManifestBody>;

const status = z.enum(PERSONA_STATUSES).meta({
  description:
    "The working copy's: `draft` (editable) → `submitted` (under review) → `published` or `rejected` (editable, resubmittable); `published` → `draft` by revising (the live version keeps serving) or unpublishing",
});

/** A persona as `GET /personas` lists it (docs/personas.md). */
export const PersonaListEntry = z
  .object({
    id: z.string().meta({ example: 'persona_4fQk…' }),
    name: z.string().meta({ description: '`identity.name` ("" while the draft has none)' }),
    tagline: z.string(),
    status,
    category: z.string().meta({ description: '`knowledge.category` ("" while the draft has none)' }),
    tools: z.array(PersonaToolRefSchema).meta({
      description: "`manifest.tools`: what the persona's agent is offered ([] while it names none)",
    }),
    knowledgeBases: z.array(z.string()).meta({
      description:
        '`manifest.knowledge.bases`: the knowledge bases the agent answers from ([] while it names none)',
    }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'PersonaListEntry' });

const Review = z
  .object({
    decision: z.enum(['approved', 'rejected']),
    notes: z.string().nullable(),
    decidedAt: timestamp(),
    tests: ReviewTestsSchema.nullable().meta({
      description: "The test results the review's decision was made with (null before the gate existed)",
    }),
  })
  .meta({ id: 'PersonaReview', description: 'The last decided review' });

const PendingReview = z
  .object({
    submittedAt: timestamp(),
    dueBy: timestamp(),
    tests: ReviewTestsSchema.nullable().meta({
      description:
        "The persona's test suite as the review runs it (null until the review workflow starts it)",
    }),
  })
  .meta({ id: 'PersonaPendingReview', description: 'The review under way while the persona is `submitted`' });

export const PersonaDetail = PersonaListEntry.extend({
  manifest: PersonaManifestSchema,
  version: z.number().int().meta({ description: '1 at creation, +1 on every update' }),
  review: Review.nullable(),
  pendingReview: PendingReview.nullable(),
  submittedAt: timestamp().nullable(),
  publishedAt: timestamp().nullable(),
  liveVersion: z.number().int().nullable().meta({
    description: 'The approved version `pk_live_` keys run (GET /personas/:id/versions); null when not live',
  }),
}).meta({ id: 'Persona' });
export type PersonaView = z.input<typeof PersonaDetail>;

export const PersonaEnvelope = z.object({ persona: PersonaDetail });
export const PersonaList = z.object({ personas: z.array(PersonaListEntry) });
export const PersonaCategories = z.object({ categories: z.array(z.enum(PERSONA_CATEGORIES)) });

export const PersonaValidation = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.string()).meta({ description: '`<path>: <problem>`; any error blocks submission' }),
    warnings: z.array(z.string()).meta({ description: '`<path>: <problem>`; never block submission' }),
  })
  .meta({ id: 'PersonaValidation' });

export const PersonaSubmitted = z.object({
  success: z.literal(true),
  status: z.literal('submitted'),
  message: z.string(),
});

export const PersonaDeleted = z.object({ success: z.literal(true), id: z.string(), deletedAt: timestamp() });

/** The rules as the OpenAPI document and docs/api-contract.md "Persona manifests" show them. */
export const RULES_DESCRIPTION = [
  'Errors (any one blocks submission):',
  ...PERSONA_RULES.errors.map((r) => `- ${r}`),
  '',
  'Warnings (never block):',
  ...PERSONA_RULES.warnings.map((r) => `- ${r}`),
].join('\n');

export const ReviewDecisionBody = z
  .strictObject({
    decision: z.enum(REVIEW_DECISIONS),
    notes: z.string().trim().max(2000).optional().meta({ description: 'Shown to the developer' }),
  })
  .meta({ id: 'ReviewDecisionRequest' });
export type ReviewDecisionInput = z.infer<typeof ReviewDecisionBody>;
