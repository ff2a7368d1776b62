import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';
import type { ToolErrorCode } from '../tools';
import type { SessionEndReason, SessionStatus, TurnRoute } from './statuses';

/**
 * A voice session (`sess_…`): one conversation of a user with a persona, run by one Temporal workflow
 * (workflow id = the session id). The row is committed with `session.started` before the workflow
 * starts; the workflow's activities record turns and the end.
 */
export class Session {
  [OptionalProps]?:
    | 'id'
    | 'status'
    | 'metadata'
    | 'turnCount'
    | 'endedAt'
    | 'endReason'
    | 'workflowStartedAt'
    | 'recording'
    | 'personaVersion'
    | 'testRunId'
    | 'createdAt'
    | 'updatedAt';
  id: string = newId('sess');
  account!: string;
  environment!: Environment;
  personaId!: string;
  /** The persona version the session runs (docs/personas.md "Versions"); null: the working draft (`pk_test_` only). */
  personaVersion?: number | null;
  userId!: string;
  status: SessionStatus = 'active';
  metadata: Record<string, unknown> = {};
  greeting!: string;
  startedAt!: Date;
  endedAt?: Date | null;
  endReason?: SessionEndReason | null;
  turnCount = 0;
  workflowStartedAt?: Date | null;
  /** Keep each turn's caller and reply audio (docs/voice-stream.md "Recordings"). */
  recording = false;
  /**
   * The agent-test run (`testrun_…`) that started the session, null for any other session (docs/sessions.md
   * "Test-run sessions"): left out of the log, the analytics and webhooks unless asked for.
   */
  testRunId?: string | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const SessionSchema = new EntitySchema<Session>({
  class: Session,
  tableName: 'sessions',
  properties: {
    ...ownedResourceProperties(),
    personaId: { type: 'string', length: 40 },
    personaVersion: { type: 'integer', nullable: true },
    userId: { type: 'string', length: 128 },
    status: { type: 'string', length: 16 },
    metadata: { type: 'json', columnType: 'jsonb' },
    greeting: { type: 'text' },
    startedAt: { type: 'Date', columnType: 'timestamptz' },
    endedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    endReason: { type: 'string', length: 16, nullable: true },
    turnCount: { type: 'integer' },
    workflowStartedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    recording: { type: 'boolean', default: false },
    testRunId: { type: 'string', length: 40, nullable: true },
    ...timestampProperties(),
  },
});

/** One action the agent took in a turn: a tool call or a workflow run. */
export type TurnAction =
  | {
      type: 'tool';
      tool: string;
      toolId: string;
      arguments: Record<string, unknown>;
      success: boolean;
      result?: unknown;
      error?: string;
      errorCode?: ToolErrorCode;
      statusCode?: number;
      durationMs: number;
    }
  | {
      type: 'workflow';
      workflowId: string;
      workflowName: string;
      /** Null while the command awaits its parameters (status `awaiting_input`): it has not run. */
      executionId: string | null;
      status: string;
      durationMs: number;
      /** A command that takes parameters: the values it was given (so far). */
      parameters?: Record<string, string | number>;
      /** Status `awaiting_input`: the parameters the agent asked for, which the caller's next turn gives. */
      missing?: string[];
    }
  | {
      /** What the answer rested on: the knowledge chunks retrieved for the turn (docs/knowledge.md "In a turn"). */
      type: 'knowledge';
      query: string;
      chunks: {
        baseId: string;
        sourceId: string;
        sourceName: string;
        ordinal: number;
        heading: string | null;
        score: number;
      }[];
      durationMs: number;
      /** Past KNOWLEDGE_TURN_BUDGET_MS (or failed): the turn went on without its knowledge. */
      timedOut?: boolean;
    };

/** One exchange: what the caller said and how the agent answered (`index` from 1). */
export class SessionTurn {
  [OptionalProps]?: 'error' | 'createdAt' | 'updateId' | 'interrupted' | 'spokenText';
  sessionId!: string;
  index!: number;
  /** The Workflow Update that took the turn: what identifies it (the index is given when it is recorded). */
  updateId?: string | null;
  text!: string;
  reply!: string;
  route!: TurnRoute;
  actions!: TurnAction[];
  error?: string | null;
  latencyMs!: number;
  /** The caller interrupted the reply (barge-in): only `spokenText` of it was heard. */
  interrupted = false;
  /** What of the reply was spoken before the turn ended (null on turns recorded before this was kept: all of it). */
  spokenText?: string | null;
  createdAt: Date = new Date();
}

export const SessionTurnSchema = new EntitySchema<SessionTurn>({
  class: SessionTurn,
  tableName: 'session_turns',
  properties: {
    sessionId: { type: 'string', primary: true, length: 40 },
    index: { type: 'integer', primary: true },
    updateId: { type: 'string', length: 64, nullable: true },
    text: { type: 'text' },
    reply: { type: 'text' },
    route: { type: 'string', length: 16 },
    actions: { type: 'json', columnType: 'jsonb' },
    error: { type: 'text', nullable: true },
    latencyMs: { type: 'integer' },
    interrupted: { type: 'boolean', default: false },
    spokenText: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
