import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../../common/context';
import { preparedQuery } from '../../db/prepared';
import { conflict } from '../../http/errors';
import { type PersonaManifest, sessionManifestSql } from '../../personas';
import {
  type CommandParameter,
  commandParametersOf,
  type ParameterValue,
  type VoiceCommandWorkflow,
  voiceCommandsOf,
  voiceCommandWorkflowsJson,
} from '../../voice-workflows';
import type { SessionRef } from '../agent-context';
import type { TurnAction } from '../session.entity';
import { TOOL_MOCKS_SQL } from '../tool-mocks';
import { CLAIM_ACTIVE_SESSION_SQL } from '../turn-claims';

/**
 * The session, the manifest of the persona version it runs (empty if the persona was deleted), the voice commands of its
 * account and environment and its last turn (whether it asked for a command's parameter): everything a turn decides
 * on, in one prepared statement. The session's
 * columns are named, so a column added later cannot change a prepared statement's result type.
 */
const SESSION_COLUMNS = `s.id, s.account_id, s.environment, s.persona_id, s.persona_version, s.user_id, s.status, s.metadata,
          ${sessionManifestSql('s.persona_id', 's.persona_version')} as persona_manifest,
          ${voiceCommandWorkflowsJson('s.account_id', 's.environment')} as voice_command_workflows,
          ${TOOL_MOCKS_SQL} as tool_mocks,
          (select json_build_object('text', t.text, 'actions', t.actions) from session_turns t
            where t.session_id = s.id order by t.index desc limit 1) as last_turn`;
const LOAD_SESSION_SQL = `select ${SESSION_COLUMNS} from sessions s where s.id = ?`;

export async function loadTurnSession(ctx: AppContext, sessionId: string): Promise<TurnSession> {
  const em = ctx.orm.em.fork();
  const [row] = await preparedQuery<Record<string, unknown>>(
    em.getConnection().getKnex(),
    'session-turn-load',
    LOAD_SESSION_SQL,
  )([sessionId]);
  if (row?.status !== 'active') throw conflict(`Session ${sessionId} has ended`);
  return turnSessionOf(em, row);
}

/**
 * Claims an active session for a turn (src/sessions/turn-claims.ts) and loads it, in one statement:
 * null when the session is claimed by another turn or a live stream (or has ended, then 409 here).
 */
export async function claimTurnSession(
  ctx: AppContext,
  claim: { sessionId: string; claimId: string; ttlMs: number },
): Promise<TurnSession | null> {
  const em = ctx.orm.em.fork();
  const [row] = await preparedQuery<Record<string, unknown>>(
    em.getConnection().getKnex(),
    'session-turn-claim-load',
    `with claimed as (${CLAIM_ACTIVE_SESSION_SQL})
     select (select claim_id from claimed) as claimed, ${SESSION_COLUMNS} from sessions s where s.id = ?`,
  )([claim.sessionId, claim.claimId, claim.ttlMs / 1000, claim.sessionId, claim.sessionId]);
  if (row?.status !== 'active') throw conflict(`Session ${claim.sessionId} has ended`);
  return row.claimed === claim.claimId ? turnSessionOf(em, row) : null;
}

function turnSessionOf(em: EntityManager, row: Record<string, unknown>) {
  const session: SessionRef = {
    id: row.id as string,
    account: row.account_id as string,
    environment: row.environment as SessionRef['environment'],
    personaId: row.persona_id as string,
    personaVersion: (row.persona_version ?? null) as number | null,
    userId: row.user_id as string,
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    status: 'active',
  };
  const commands = voiceCommandsOf(row.voice_command_workflows as VoiceCommandWorkflow[]);
  return {
    em,
    session,
    manifest: (row.persona_manifest ?? {}) as PersonaManifest,
    commands,
    toolMocks: (row.tool_mocks ?? null) as Record<string, unknown> | null,
    awaiting: awaitingCommandOf(row.last_turn as LastTurn | null, commands),
  };
}

type LastTurn = { text: string; actions: TurnAction[] };

/**
 * The voice command the session's last turn asked a parameter for (an `awaiting_input` action, as
 * the session's workflow recorded it): the caller's next turn answers it. None when the workflow was
 * deleted since, or no longer takes what was asked for.
 */
function awaitingCommandOf(last: LastTurn | null, commands: TurnSession['commands']): AwaitingCommand | null {
  const asked = last?.actions.find((a) => a.type === 'workflow' && a.status === 'awaiting_input');
  if (!last || asked?.type !== 'workflow') return null;
  const known = commands.find((c) => c.item.id === asked.workflowId);
  if (!known) return null;
  const missing = commandParametersOf(known.item.trigger).filter((p) => asked.missing?.includes(p.name));
  if (missing.length === 0) return null;
  return { ...known, utterance: last.text, values: asked.parameters ?? {}, missing };
}

/** A command whose parameters the agent asked for in the last turn. */
export interface AwaitingCommand {
  item: VoiceCommandWorkflow;
  command: string;
  /** What the caller said that matched the command (the asking turn's words). */
  utterance: string;
  /** The parameters filled then. */
  values: Record<string, ParameterValue>;
  /** The parameters asked for. */
  missing: CommandParameter[];
}

export interface TurnSession {
  em: EntityManager;
  session: SessionRef;
  manifest: PersonaManifest;
  commands: ReturnType<typeof voiceCommandsOf>;
  /** A test session's tool mocks (tool name → result), or null (src/sessions/tool-mocks.ts). */
  toolMocks: Record<string, unknown> | null;
  /** The voice command the last turn asked a parameter for, or null. */
  awaiting: AwaitingCommand | null;
}
