import type { ConsoleAuth } from '../accounts';
import type { AdminAuth } from '../auth/admin-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { PERSONA_CATEGORIES } from './manifest';
import { decidePersonaReview, deletePersona, submitPersona } from './persona-review.service';
import {
  PersonaCategories,
  PersonaDeleted,
  PersonaEnvelope,
  PersonaIdParams,
  PersonaList,
  PersonaManifestBody,
  PersonaSubmitted,
  PersonaValidation,
  ReviewDecisionBody,
  RULES_DESCRIPTION,
} from './personas.schemas';
import {
  createPersona,
  findPersona,
  getPersona,
  listPersonas,
  refuseUnofferableTools,
  unpublishPersona,
  updatePersona,
  validatePersona,
} from './personas.service';
import { mountPersonaVersionRoutes } from './versions.routes';

export function mountPersonaRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  console
    .route({
      method: 'get',
      path: '/personas',
      summary: 'List your personas',
      success: { description: 'Your personas, newest first', schema: PersonaList },
      handler: async ({ auth }) => ({ personas: await listPersonas(em(), auth.account.id) }),
    })
    .route({
      method: 'post',
      path: '/personas',
      summary: 'Create a persona (a draft)',
      description:
        'A draft may be incomplete (validate tells what is missing), but every field present must have the right type; unknown fields anywhere in the manifest are refused and named.',
      body: PersonaManifestBody,
      success: { status: 201, description: 'The draft', schema: PersonaEnvelope },
      handler: async ({ auth, body }) => {
        await refuseUnofferableTools(ctx, em(), auth.account.id, body.manifest);
        return { persona: await createPersona(em(), auth.account.id, body.manifest) };
      },
    })
    .route({
      method: 'get',
      path: '/personas/categories',
      summary: 'The allowed knowledge.category values',
      success: { description: 'Categories', schema: PersonaCategories },
      handler: () => ({ categories: [...PERSONA_CATEGORIES] }),
    })
    .route({
      method: 'get',
      path: '/personas/:id',
      summary: 'Get a persona',
      params: PersonaIdParams,
      success: { description: 'The persona with its manifest and last review', schema: PersonaEnvelope },
      handler: async ({ auth, params }) => ({ persona: await getPersona(em(), auth.account.id, params.id) }),
    })
    .route({
      method: 'put',
      path: '/personas/:id',
      summary: 'Replace the manifest of a draft or rejected persona',
      description:
        'Any other status → 409 `CONFLICT`. A rejected persona stays rejected until resubmitted. `version` increments.',
      params: PersonaIdParams,
      body: PersonaManifestBody,
      success: { description: 'The updated persona', schema: PersonaEnvelope },
      handler: async ({ auth, params, body }) => {
        await refuseUnofferableTools(ctx, em(), auth.account.id, body.manifest);
        return { persona: await updatePersona(em(), auth.account.id, params.id, body.manifest) };
      },
    })
    .route({
      method: 'post',
      path: '/personas/:id/validate',
      summary: 'Validate a persona against the submission rules',
      description: RULES_DESCRIPTION,
      params: PersonaIdParams,
      success: { description: 'Every error and warning at once', schema: PersonaValidation },
      handler: async ({ auth, params }) =>
        validatePersona(em(), ctx.config, await findPersona(em(), auth.account.id, params.id)),
    })
    .route({
      method: 'post',
      path: '/personas/:id/submit',
      summary: 'Submit a persona for review',
      description:
        'Only from `draft` or `rejected`; a persona failing validation → 409 `CONFLICT` with `validationErrors`, nothing changed. Starts an operator review (a Temporal workflow `review-<persona id>-<submission>`); review takes 2-5 business days.',
      params: PersonaIdParams,
      success: { description: 'Submitted', schema: PersonaSubmitted },
      handler: ({ auth, params }) => submitPersona(ctx, em(), auth.account.id, params.id),
    })
    .route({
      method: 'post',
      path: '/personas/:id/unpublish',
      summary: 'Unpublish a persona (back to draft)',
      description: 'Only a published persona; it becomes an editable, submittable draft.',
      params: PersonaIdParams,
      success: { description: 'The persona, now a draft', schema: PersonaEnvelope },
      handler: async ({ auth, params }) => ({
        persona: await unpublishPersona(em(), auth.account.id, params.id),
      }),
    })
    .route({
      method: 'delete',
      path: '/personas/:id',
      summary: 'Delete a persona',
      description:
        'A published persona → 409 `CONFLICT` (unpublish it first). A submitted one withdraws its review.',
      params: PersonaIdParams,
      success: { description: 'Deleted', schema: PersonaDeleted },
      handler: ({ auth, params }) => deletePersona(ctx, em(), auth.account.id, params.id),
    });
  mountPersonaVersionRoutes(console, ctx);
}

export function mountPersonaReviewRoutes(admin: ApiRoot<AdminAuth>, ctx: AppContext): void {
  admin.route({
    method: 'post',
    path: '/personas/:id/review',
    summary: "Decide a persona's review",
    description:
      'Sent to the waiting review workflow as a Workflow Update; the answer is the persona after the decision (`published`, or `rejected` with the notes). 409 when the persona is not under review.',
    params: PersonaIdParams,
    body: ReviewDecisionBody,
    success: { description: 'The persona after the decision', schema: PersonaEnvelope },
    handler: async ({ params, body }) => ({
      persona: await decidePersonaReview(ctx, ctx.orm.em, params.id, body),
    }),
  });
}
