import type { Knex } from 'knex';
import { RECORDED_CALL_SQL, reportLinks } from '../call-reports';
import type { CoreContext } from '../common/context';
import { derivedId } from '../common/ids';
import type { Environment } from '../common/owner';
import type { Config } from '../config/env';
import { eventRow, insertEventsSql } from '../events/emit';
import type { SessionAnalyzedPayload } from '../events/payloads';
import { completeChatInActivity } from '../outbound/chat-completion';
import type { AnalysisSetting } from '../personas';
import { type AnalysisResult, analysisMessages, checkAnswer, type RefusedAnswer } from './analysis-prompt';

/** How much of a refused answer is kept to show the model on its second try. */
const REFUSED_ANSWER_KEPT = 8000;

export interface AskInput {
  analysisId: string;
  /** The second try: the first answer and its problems. */
  refused?: RefusedAnswer;
}

/** One model answer: checked and valid, refused with its problems, or nothing to do (`done`). */
export type AskOutcome =
  | { kind: 'valid'; result: AnalysisResult }
  | ({ kind: 'invalid' } & RefusedAnswer)
  | { kind: 'done' };

interface PendingAnalysis {
  status: string;
  setting: AnalysisSetting;
  session_id: string;
}

/**
 * Asks the model for an analysis (temperature 0, a JSON object) from the session's transcript and the
 * setting copied into the analysis, and checks its answer. Safe to repeat: it only reads and asks.
 * An analysis that is no longer pending (recorded already, or deleted with its session) is `done`.
 */
export async function askAnalysisModel(
  deps: { knex: Knex; config: Config },
  input: AskInput,
): Promise<AskOutcome> {
  const { rows } = await deps.knex.raw<{ rows: PendingAnalysis[] }>(
    'select status, setting, session_id from session_analyses where id = ?',
    [input.analysisId],
  );
  const analysis = rows[0];
  if (analysis?.status !== 'pending') return { kind: 'done' };
  const { rows: turns } = await deps.knex.raw<{ rows: { text: string; heard: string }[] }>(
    'select text, coalesce(spoken_text, reply) as heard from session_turns where session_id = ? order by index',
    [analysis.session_id],
  );
  const content = await completeChatInActivity(
    deps.config.llm,
    analysisMessages(analysis.setting, turns, input.refused),
    {
      json: true,
    },
  );
  const checked = checkAnswer(analysis.setting, content);
  if (checked.ok) return { kind: 'valid', result: checked.result };
  return { kind: 'invalid', answer: content.slice(0, REFUSED_ANSWER_KEPT), problems: checked.problems };
}

/** What the workflow records: the result, or why there is none. */
export type AnalysisRecord = { analysisId: string; attempts: number } & (
  | { status: 'completed'; result: AnalysisResult }
  | { status: 'failed'; error: string }
);

interface Owner {
  account_id: string;
  environment: Environment;
  session_id: string;
  persona_id: string;
}

/**
 * Records an analysis's outcome and its `session.analyzed` event (with the session's signed
 * end-of-call links, docs/sessions.md "End-of-call links") in one statement, once: only a
 * pending analysis is updated, and the event (id derived from the analysis) is inserted only when
 * that update happened, so a retried activity changes nothing. Answers whether this call recorded it.
 */
export async function recordAnalysis(
  deps: Pick<CoreContext, 'config' | 'encryptor'> & { knex: Knex },
  r: AnalysisRecord,
): Promise<{ recorded: boolean }> {
  const { knex } = deps;
  const { rows } = await knex.raw<{ rows: Owner[] }>(
    'select account_id, environment, session_id, persona_id from session_analyses where id = ?',
    [r.analysisId],
  );
  const owner = rows[0];
  if (!owner) return { recorded: false };
  const result = r.status === 'completed' ? r.result : { summary: null, success: null, data: null };
  const error = r.status === 'failed' ? r.error.slice(0, 2000) : null;
  const { rows: calls } = await knex.raw<{ rows: { id: string }[] }>(RECORDED_CALL_SQL, [owner.session_id]);
  const data: SessionAnalyzedPayload = {
    analysisId: r.analysisId,
    sessionId: owner.session_id,
    personaId: owner.persona_id,
    status: r.status,
    ...result,
    error,
    ...reportLinks(deps, {
      accountId: owner.account_id,
      sessionId: owner.session_id,
      callId: calls[0]?.id ?? null,
    }),
  };
  const event = eventRow({
    id: derivedId('evt', r.analysisId, 'analyzed'),
    accountId: owner.account_id,
    environment: owner.environment,
    type: 'session.analyzed',
    personaId: owner.persona_id,
    data,
  });
  const insert = insertEventsSql(
    { accountId: owner.account_id, environment: owner.environment },
    [event],
    'exists (select 1 from recorded)',
  );
  const { rows: done } = await knex.raw<{ rows: { id: string }[] }>(
    `with recorded as (
       update session_analyses set status = ?, summary = ?, success_passed = ?, success_reason = ?,
         data = ?::jsonb, error = ?, attempts = ?, completed_at = now()
       where id = ? and status = 'pending' returning id
     ), emitted as (${insert.sql})
     select id from recorded`,
    [
      r.status,
      result.summary,
      result.success?.passed ?? null,
      result.success?.reason ?? null,
      result.data === null ? null : JSON.stringify(result.data),
      error,
      r.attempts,
      r.analysisId,
      ...insert.bindings,
    ],
  );
  return { recorded: done.length > 0 };
}
