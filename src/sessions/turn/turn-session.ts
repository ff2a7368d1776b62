import type { AppContext } from '../../common/context';
import { preparedQuery } from '../../db/prepared';
import { conflict } from '../../http/errors';
import { type PersonaManifest, personaManifestSql } from '../../personas';
import { type VoiceCommandWorkflow, voiceCommandsOf, voiceCommandWorkflowsJson } from '../../voice-workflows';
import type { SessionRef } from '../agent-context';

/**
 * The session, its persona's manifest (empty if the persona was deleted) and the voice commands of its
 * account and environment: everything a turn decides on, in one prepared statement. The session's
 * columns are named, so a column added later cannot change a prepared statement's result type.
 */
const LOAD_SESSION_SQL = `select s.id, s.account_id, s.environment, s.persona_id, s.user_id, s.status, s.metadata,
          ${personaManifestSql('s.persona_id')} as persona_manifest,
          ${voiceCommandWorkflowsJson('s.account_id', 's.environment')} as voice_command_workflows
     from sessions s where s.id = ?`;

export async function loadTurnSession(ctx: AppContext, sessionId: string) {
  const em = ctx.orm.em.fork();
  const [row] = await preparedQuery<Record<string, unknown>>(
    em.getConnection().getKnex(),
    'session-turn-load',
    LOAD_SESSION_SQL,
  )([sessionId]);
  if (row?.status !== 'active') throw conflict(`Session ${sessionId} has ended`);
  const session: SessionRef = {
    id: row.id as string,
    account: row.account_id as string,
    environment: row.environment as SessionRef['environment'],
    personaId: row.persona_id as string,
    userId: row.user_id as string,
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    status: 'active',
  };
  return {
    em,
    session,
    manifest: (row.persona_manifest ?? {}) as PersonaManifest,
    commands: voiceCommandsOf(row.voice_command_workflows as VoiceCommandWorkflow[]),
  };
}

export type TurnSession = Awaited<ReturnType<typeof loadTurnSession>>;
