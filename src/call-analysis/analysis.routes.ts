import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok } from '../http/envelope';
import { AnalysisSessionParams, SessionAnalysisEnvelope } from './analysis.schemas';
import { getSessionAnalysis } from './analysis.service';

/** GET /sessions/:id/analysis on the platform root (docs/sessions.md "Post-call analysis"). */
export function mountCallAnalysisRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  platform.route({
    method: 'get',
    path: '/sessions/:id/analysis',
    summary: 'A session’s post-call analysis',
    description:
      'Written after the session ends when its persona has an `analysis` setting: a summary, the call graded against the success criteria, and the fields of the data schema. `status` is `pending` until the model has answered (usually seconds), then `completed`, `failed` (with `error`) or `skipped` (no LLM provider). 404 before the analysis exists (the session has not ended, or its persona has no `analysis` setting). `session.analyzed` is emitted when it completes or fails.',
    scope: 'sessions:read',
    params: AnalysisSessionParams,
    success: { description: 'The analysis', schema: SessionAnalysisEnvelope },
    handler: async ({ auth, params }) => ok(await getSessionAnalysis(ctx.orm.em, auth, params.id)),
  });
}
