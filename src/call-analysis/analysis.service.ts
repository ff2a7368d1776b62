import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { Owner } from '../common/owner';
import { ApiError } from '../http/errors';
import { checkSessionOwned } from '../sessions';
import type { SessionAnalysis } from './analysis.schemas';
import type { AnalysisStatus } from './statuses';

interface AnalysisRow {
  id: string;
  session_id: string;
  persona_id: string;
  status: AnalysisStatus;
  summary: string | null;
  success_passed: boolean | null;
  success_reason: string | null;
  data: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * GET /sessions/:id/analysis: the owner's session (404 for another account's or environment's), then
 * its analysis, or 404 saying why there is none yet.
 */
export async function getSessionAnalysis(
  em: EntityManager,
  owner: Owner,
  sessionId: string,
): Promise<z.input<typeof SessionAnalysis>> {
  await checkSessionOwned(em, owner, sessionId);
  const rows = await em.getConnection().execute<AnalysisRow[]>(
    `select id, session_id, persona_id, status, summary, success_passed, success_reason, data, error,
              attempts, created_at, completed_at
       from session_analyses where session_id = ? and account_id = ? and environment = ?`,
    [sessionId, owner.accountId, owner.environment],
  );
  const row = rows[0];
  if (!row)
    throw new ApiError(
      404,
      'NOT_FOUND',
      'Analysis not found: the session has not ended yet, ended less than a second ago, or its persona has no `analysis` setting',
    );
  return {
    id: row.id,
    sessionId: row.session_id,
    personaId: row.persona_id,
    status: row.status,
    summary: row.summary,
    success:
      row.success_passed === null ? null : { passed: row.success_passed, reason: row.success_reason ?? '' },
    data: row.data,
    error: row.error,
    attempts: row.attempts,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.completed_at ? new Date(row.completed_at).toISOString() : null,
  };
}
