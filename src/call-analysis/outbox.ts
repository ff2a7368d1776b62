import { derivedId } from '../common/ids';
import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { startAnalysisWorkflow } from './analysis-workflows';

/** The SQL test that a manifest (alias `m`) asks for an analysis: an `analysis` section asking for something. */
const ANALYSIS_WANTED = `(coalesce((m.manifest->'analysis'->>'summary')::boolean, false)
  or m.manifest->'analysis'->'successCriteria' is not null
  or m.manifest->'analysis'->'dataSchema' is not null)`;

interface EndedSession {
  session_id: string;
  account_id: string;
  environment: string;
  persona_id: string;
  setting: unknown;
}

interface UnstartedAnalysis {
  id: string;
  account_id: string;
  persona_id: string;
  session_id: string;
}

/**
 * Post-call analysis's side of the outbox: each claimed `session.ended` of a persona with an
 * `analysis` setting (in the persona version the session ran, else the persona's working manifest)
 * becomes one analysis row (id derived from the session, the setting copied in),
 * `pending`, or `skipped` when this process has no LLM provider configured; pending analyses without
 * a workflow get one (workflow id = analysis id).
 */
export function createAnalysisOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'call-analysis',
    wantsEventSql: `e.type = 'session.ended'`,

    async onEvents(trx, eventIds) {
      const { rows } = await trx.raw<{ rows: EndedSession[] }>(
        `select s.id as session_id, s.account_id, s.environment, s.persona_id, m.manifest->'analysis' as setting
         from events e
         join sessions s on s.id = (e.payload::jsonb->'data'->>'sessionId')
         join personas p on p.id = s.persona_id
         left join persona_versions v on v.persona_id = s.persona_id and v.version = s.persona_version
         cross join lateral (select coalesce(v.manifest, p.manifest) as manifest) m
         where e.id = any(?) and e.type = 'session.ended' and ${ANALYSIS_WANTED}`,
        [eventIds],
      );
      if (rows.length === 0) return 0;
      const skipped = !config.llm.baseUrl;
      await trx.raw(
        `insert into session_analyses (id, account_id, environment, session_id, persona_id, setting, status, error, created_at, completed_at)
         select a.id, a.account_id, a.environment, a.session_id, a.persona_id, a.setting::jsonb, ?, ?, now(),
                case when ? then now() end
         from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
           as a(id, account_id, environment, session_id, persona_id, setting)
         on conflict do nothing`,
        [
          skipped ? 'skipped' : 'pending',
          skipped ? 'No LLM provider is configured (LLM_BASE_URL)' : null,
          skipped,
          rows.map((r) => derivedId('ana', r.session_id)),
          rows.map((r) => r.account_id),
          rows.map((r) => r.environment),
          rows.map((r) => r.session_id),
          rows.map((r) => r.persona_id),
          rows.map((r) => JSON.stringify(r.setting)),
        ],
      );
      return skipped ? 0 : rows.length;
    },

    startPending(startClaimed) {
      return startClaimed<UnstartedAnalysis>({
        table: 'session_analyses',
        claimSql: `select id, account_id, persona_id, session_id from session_analyses
           where workflow_started_at is null and status = 'pending'
           order by created_at limit ? for update skip locked`,
        bindings: [OUTBOX_BATCH],
        start: (r) =>
          startAnalysisWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            personaId: r.persona_id,
            sessionId: r.session_id,
          }),
      });
    },
  };
}
