import {
  checkReportLink,
  REPORT_LINK_PATHS,
  ReportLinkParams,
  ReportLinkQuery,
  SIGNED_LINK_NOTE,
} from '../../call-reports';
import type { AppContext } from '../../common/context';
import type { ApiRoot } from '../../http/api-router';
import { notFound } from '../../http/errors';
import { CallRecording } from '../calls/calls.schemas';
import { sendCallRecording } from './call-recordings';

/**
 * GET /links/calls/:id/recording on the platform API's public root (docs/sessions.md "End-of-call
 * links"): the call's two-channel WAV, as GET /calls/:id/recording streams it, for a signed link,
 * without an API key. The link is checked before anything of the recording is read.
 */
export function mountRecordingLinkRoute(publicRoot: ApiRoot<null>, ctx: AppContext): void {
  publicRoot.route({
    method: 'get',
    path: REPORT_LINK_PATHS.recording,
    summary: "A call's recording (signed link; WAV, two channels)",
    description: `${SIGNED_LINK_NOTE} The WAV of GET /calls/:id/recording; 404 when the call has no recording (yet, or any more: kept RECORDING_RETENTION_DAYS).`,
    params: ReportLinkParams,
    query: ReportLinkQuery,
    success: { description: '`audio/wav`', schema: CallRecording },
    handler: async ({ params, query, res }) => {
      const knex = ctx.orm.em.getConnection().getKnex();
      const { rows } = await knex.raw<{ rows: { account_id: string }[] }>(
        'select account_id from calls where id = ?',
        [params.id],
      );
      checkReportLink(ctx, 'recording', params.id, rows[0]?.account_id, query);
      if (!(await sendCallRecording(knex, params.id, res))) throw notFound('Recording');
      return '';
    },
  });
}
