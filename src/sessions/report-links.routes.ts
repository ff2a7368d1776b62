import { z } from 'zod';
import {
  checkReportLink,
  REPORT_LINK_PATHS,
  ReportLinkParams,
  ReportLinkQuery,
  SIGNED_LINK_NOTE,
} from '../call-reports';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { envelopeOf, ok } from '../http/envelope';
import { Session } from './session.entity';
import { SessionDetail } from './sessions.schemas';
import { sessionTranscript } from './sessions.service';

export const SessionTranscriptEnvelope = envelopeOf(
  z
    .object({
      sessionId: z.string(),
      transcript: SessionDetail.shape.transcript,
    })
    .meta({ id: 'SessionTranscript' }),
);

/**
 * GET /links/sessions/:id/transcript on the platform API's public root (docs/sessions.md
 * "End-of-call links"): the session's transcript, for a signed link, without an API key. The link
 * is checked before anything of the session is read.
 */
export function mountTranscriptLinkRoute(publicRoot: ApiRoot<null>, ctx: AppContext): void {
  publicRoot.route({
    method: 'get',
    path: REPORT_LINK_PATHS.transcript,
    summary: 'A session’s transcript (signed link)',
    description: `${SIGNED_LINK_NOTE} The transcript has the shape of GET /sessions/:id’s \`transcript\`.`,
    params: ReportLinkParams,
    query: ReportLinkQuery,
    success: { description: 'The transcript', schema: SessionTranscriptEnvelope },
    handler: async ({ params, query }) => {
      const em = ctx.orm.em.fork();
      const session = await em.findOne(Session, { id: params.id });
      checkReportLink(ctx, 'transcript', params.id, session?.account, query);
      return ok({ sessionId: params.id, transcript: await sessionTranscript(em, params.id) });
    },
  });
}
