/**
 * Every message of the project's Temporal workflows: updates, signals and queries, defined once.
 * Workflows set their handlers with these definitions and clients send them
 * (`handle.executeUpdate(turnUpdate, { args })`), so no message is named by a string anywhere else
 * and both sides share one type (docs/architecture.md "Temporal"). Pure: it imports only
 * @temporalio/workflow's definers and types, so workflow code and the API may both import it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RemovalWorkflowState } from '../src/marketplace/removal/removal-types';
import type { OperatorDecision, ReviewOutcome, ReviewState } from '../src/reviews/review-types';
import type { TurnRecord } from '../src/sessions/turn-types';
import type { StepRecord } from '../src/voice-workflows/interpreter';

// --- voice sessions (workflows/voice-session.ts)

/** What the caller said in one turn. */
export interface TurnInput {
  text: string;
}

/** How a session ended. */
export interface SessionEnd {
  endedAt: string;
  turnCount: number;
  durationMs: number;
}

/** One turn: what the caller said. Answers the turn once the agent has replied (docs/sessions.md). */
export const turnUpdate = defineUpdate<TurnRecord, [TurnInput]>('turn');
/** Ends the session (`session.ended`); ending an ended session answers its end again. */
export const endUpdate = defineUpdate<SessionEnd, []>('end');
/** The session's status and turns so far (the Web UI's query tab, tests). */
export const sessionStateQuery = defineQuery<{ status: string; turnCount: number }>('state');

// --- persona and marketplace reviews (workflows/operator-review.ts)

/** The operator's decision (POST /api/admin/…/review): answers the review's outcome once applied. */
export const decideReviewUpdate = defineUpdate<ReviewOutcome, [OperatorDecision]>('decide');
/** The review's state, for the Web UI's query tab and for tests. */
export const reviewStateQuery = defineQuery<ReviewState>('state');

// --- marketplace removals (workflows/remove-marketplace-item.ts)

/** The publisher restored the item (sent after the restore committed). */
export const restoreItemSignal = defineSignal('restore');
/** `waiting` until the grace period ends, then `removed` or `restored`. */
export const removalStateQuery = defineQuery<RemovalWorkflowState>('state');

// --- voice-workflow executions (workflows/run-voice-workflow.ts)

/** The nodes running now and the steps settled so far (also shown as the execution's current details). */
export const progressQuery = defineQuery<{ currentNodes: string[]; steps: StepRecord[] }>('progress');
