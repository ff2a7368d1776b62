import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../common/owner';
import { Session } from './session.entity';
import type { ListSessionsInput } from './sessions.schemas';
import { sessionView } from './sessions.service';

/**
 * GET /sessions: the owner's sessions, newest first. The sessions of agent-test runs are left out
 * unless `includeTestRuns` (docs/sessions.md "Test-run sessions"); console test calls are sessions
 * like any other.
 */
export async function listSessions(em: EntityManager, owner: Owner, query: ListSessionsInput) {
  const where = {
    account: owner.accountId,
    environment: owner.environment,
    ...(query.includeTestRuns ? {} : { testRunId: null }),
    ...(query.status ? { status: query.status } : {}),
    ...(query.personaId ? { personaId: query.personaId } : {}),
    ...(query.userId ? { userId: query.userId } : {}),
    ...(query.from || query.to
      ? {
          startedAt: {
            ...(query.from ? { $gte: new Date(query.from) } : {}),
            ...(query.to ? { $lte: new Date(query.to) } : {}),
          },
        }
      : {}),
    ...(query.q ? { id: { $in: await sessionsSaying(em, owner, query.q, query.includeTestRuns) } } : {}),
  };
  const [rows, total] = await em.findAndCount(Session, where, {
    orderBy: { startedAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
  return { data: rows.map(sessionView), total };
}

/** A transcript search looks at most at this many matching sessions, the most recent first. */
const SEARCH_LIMIT = 10_000;

/** The ids of the owner's sessions with a turn whose words or reply contain `text`, newest first. */
async function sessionsSaying(
  em: EntityManager,
  owner: Owner,
  text: string,
  includeTestRuns = false,
): Promise<string[]> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows: { id: string }[] = await em
    .getConnection()
    .getKnex()('sessions as s')
    .select('s.id')
    .where({ 's.account_id': owner.accountId, 's.environment': owner.environment })
    .modify((q) => {
      if (!includeTestRuns) q.whereNull('s.test_run_id');
    })
    .whereExists((q) =>
      q
        .select(1)
        .from('session_turns as t')
        .whereRaw('t.session_id = s.id')
        .andWhere((w) => w.whereILike('t.text', pattern).orWhereILike('t.reply', pattern)),
    )
    .orderBy('s.started_at', 'desc')
    .limit(SEARCH_LIMIT);
  return rows.map((r) => r.id);
}
