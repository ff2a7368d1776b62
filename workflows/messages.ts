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
import type { AgentToolCall, AgentToolOutcome } from '../src/sessions/agent-tools';
import type { TurnRecord } from '../src/sessions/turn-types';
import type { CallStatus } from '../src/telephony/calls/call-statuses';
import type { FinishedExecution } from '../src/voice-workflows/execution-store';
import type { RunVoiceWorkflowInput } from '../src/voice-workflows/execution-types';
import type { StepRecord } from '../src/voice-workflows/interpreter';

// --- voice sessions (workflows/voice-session.ts)

/** A turn as it ended (answered, interrupted or failed), to record: everything but its index. */
export type TurnInput = Omit<TurnRecord, 'index'> & {
  /** The voice command the API ran without side effects: recorded with the turn, in its statement. */
  command?: FinishedExecution;
};

/** The tool calls of one model round, for the session's workflow to run (each at most once). */
export interface ToolRoundInput {
  turnId: string;
  calls: Pick<AgentToolCall, 'call' | 'tool' | 'mock'>[];
  owner: AgentToolCall['owner'];
  caller: AgentToolCall['caller'];
}

/** A voice command with side effects, for the session's workflow to run step by step. */
export interface CommandInput {
  turnId: string;
  plan: RunVoiceWorkflowInput;
}

/** What a voice command's run came to (the turn's reply and action are made of it). */
export interface CommandRun {
  status: 'completed' | 'failed';
  /** What its `speak` steps said, in order. */
  speech: string[];
  /** Where and why it failed. */
  failure: string | null;
  durationMs: number;
  /** Every node as it settled, in order. */
  steps: StepRecord[];
}

/** How a session ended. */
export interface SessionEnd {
  endedAt: string;
  turnCount: number;
  durationMs: number;
}

/**
 * Records a turn once it has ended (docs/sessions.md "Where each part runs"): the update's id is the
 * turn's, its input what was said and answered, its result the turn as recorded, with its index.
 */
export const turnUpdate = defineUpdate<TurnRecord, [TurnInput]>('turn');
/** Runs one model round's tool calls, in order, each at most once; answers their outcomes. */
export const toolsUpdate = defineUpdate<AgentToolOutcome[], [ToolRoundInput]>('tools');
/** Runs a voice command with side effects (its graph, step by step); answers how it went. */
export const commandUpdate = defineUpdate<CommandRun, [CommandInput]>('command');
/** A turn under way holds its session open (docs/sessions.md "Idleness"): what the API says of it. */
export interface TurnLease {
  /**
   * The turn's id, the id of the `turn` update that will record it; or the id of another hold that
   * is never recorded (a live call's greeting), given back when it is over.
   */
  turnId: string;
  /**
   * How long the turn holds the session from now, unless the API renews it first or its record
   * arrives; 0 gives the hold back (the turn ended without a record: it failed).
   */
  leaseMs: number;
}

/**
 * A turn began (or is still under way, a renewal; or ended without a record, `leaseMs: 0`): the
 * session's idle timer waits for it. A signal, sent without waiting, so the turn never waits for it.
 */
export const turnLeaseSignal = defineSignal<[TurnLease]>('turnLease');
/** Ends the session (`session.ended`); ending an ended session answers its end again. */
export const endUpdate = defineUpdate<SessionEnd, []>('end');
/** The session's status, turns so far and the turns under way, by id (the Web UI's query tab, tests). */
export const sessionStateQuery = defineQuery<{ status: string; turnCount: number; turnsUnderWay: string[] }>(
  'state',
);

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

// --- phone calls (workflows/phone-call.ts)

/** A status the carrier reported (its signed status callback), as the API passes it on. */
export interface CarrierStatus {
  status: CallStatus;
  /** The carrier's order of its callbacks (Twilio's `SequenceNumber`), when it sends one. */
  sequence?: number;
  /** When the carrier says it happened (ISO 8601), else when it arrived. */
  at: string;
  carrierCallId?: string;
  /** The call's duration so far, in seconds (Twilio's `CallDuration`, on `completed`). */
  durationS?: number;
}

/** A call's state: its status, session, carrier id and, once ended, why. */
export interface CallState {
  status: CallStatus;
  sessionId: string | null;
  carrierCallId: string | null;
  endedReason: string | null;
  /** The warm transfer under way or last tried (absent before any). */
  warmTransfer?: WarmTransferState;
}

/**
 * A warm transfer (docs/telephony.md "Warm transfers"): `dialing` while the destination rings,
 * `answered` once the callee heard the summary (the call is transferred), `returned` when nobody
 * answered and the caller came back to the agent (`dialStatus` says why).
 */
export interface WarmTransferState {
  requestId: string;
  destination: string;
  name: string;
  summary: string;
  status: 'dialing' | 'answered' | 'returned';
  dialStatus?: string;
  /** How many warm transfers came back to the agent: numbers each return's stream token. */
  returns: number;
}

/** A carrier status callback: merged forward-only, deduplicated (a signal: the carrier is not kept waiting). */
export const carrierStatusSignal = defineSignal<[CarrierStatus]>('carrierStatus');
/**
 * Why the platform hangs up a call: `hangup` (POST /calls/:id/hangup), `idle_timeout` (its session
 * idled out: nothing said on either side), `session_ended` (its session was ended through the API),
 * `max_duration` (its media stream said the closing line at `maxDurationS`), `agent_ended` (the
 * agent's `end_call`, once its goodbye played), `voicemail` (an answering machine took the call; its
 * message was left).
 */
export type HangupReason =
  | 'hangup'
  | 'idle_timeout'
  | 'session_ended'
  | 'max_duration'
  | 'agent_ended'
  | 'voicemail';
/**
 * Hangs up through the carrier (a call not placed yet is canceled); answers the state. The reason
 * becomes the call's `endedReason` (`hangup` when none is given: an update sent before the reason
 * existed carries no argument).
 */
export const hangupUpdate = defineUpdate<CallState, [{ reason?: HangupReason }]>('hangup');
/**
 * The media transport's: the carrier's stream started. Creates the call's session (once; a second
 * call answers the same id) and answers it.
 */
export const streamConnectedUpdate = defineUpdate<StreamConnected, []>('streamConnected');
/** The call's session; `returnedFrom` when the stream is the caller coming back from a warm transfer. */
export interface StreamConnected {
  sessionId: string;
  returnedFrom?: { name: string; dialStatus: string };
}
/** The call's state, for the Web UI's query tab and for tests. */
export const callStateQuery = defineQuery<CallState>('state');
/** A transfer the agent asked for (`transfer_call`): a listed number or SIP address. */
export interface CallTransfer {
  destination: string;
  /** The tool call that asked it (the update's id is the call's and this one's). */
  requestId: string;
  /** Cold when absent. */
  mode?: 'cold' | 'warm';
  /** The destination's name (what the agent says when a warm transfer comes back). */
  name?: string;
  /** A warm transfer's whisper: what the callee hears before the caller is put through. */
  summary?: string;
}
/**
 * The media transport's: asks the carrier, once (a transfer asked twice would dial twice). Cold: the
 * caller is put through, `call.transferred` is emitted and the call ends `transferred`. Warm: the
 * destination is dialled with the summary as its whisper; the carrier's requests then say how it
 * went (`warmTransferAnsweredUpdate`, `warmTransferEndedUpdate`). Refused while the call is not in
 * progress or a warm transfer is dialling.
 */
export const transferUpdate = defineUpdate<TransferOutcome, [CallTransfer]>('transfer');
export type TransferOutcome = { ok: true } | { ok: false; error: string };
/**
 * The carrier's: the callee of warm transfer `requestId` answered (its whisper is asked for). Emits
 * `call.transferred`; answers the summary to whisper (null: not this call's transfer under way).
 */
export const warmTransferAnsweredUpdate = defineUpdate<{ summary: string } | null, [{ requestId: string }]>(
  'warmTransferAnswered',
);
/**
 * The carrier's: warm transfer `requestId`'s dial ended (Twilio's `DialCallStatus`). Answers
 * `hangUp` after a callee who answered (the bridged talk is over), else `returnStream`: the
 * number of the stream token the caller comes back to the agent with.
 */
export const warmTransferEndedUpdate = defineUpdate<
  { next: 'hangUp' } | { next: 'returnStream'; streamTokenSeq: number },
  [{ requestId: string; dialStatus: string }]
>('warmTransferEnded');
/**
 * Who answered an outbound call, as the carrier's answering-machine detection says (Twilio's
 * `AnsweredBy`): a machine's verdict comes once its greeting has ended (`beep`: it beeped then).
 */
export interface CarrierAnsweredBy {
  answeredBy: 'human' | 'machine' | 'fax' | 'unknown';
  beep: boolean;
}
/** The carrier's verdict, from its signed callback (a signal: the carrier is not kept waiting). */
export const answeredBySignal = defineSignal<[CarrierAnsweredBy]>('answeredBy');
/** The media transport's: waits up to `waitMs` for the carrier's verdict; null when none came. */
export const awaitAnsweredByUpdate = defineUpdate<CarrierAnsweredBy | null, [{ waitMs: number }]>(
  'awaitAnsweredBy',
);

// --- outbound campaigns (workflows/campaign.ts)

/** A campaign's state as its workflow holds it: the status, and the calls under way now. */
export interface CampaignState {
  status: 'running' | 'paused' | 'completed' | 'canceled';
  callsInFlight: number;
}
/** Places nothing new until resumed (calls under way go on); answers the state once recorded. */
export const pauseCampaignUpdate = defineUpdate<CampaignState, []>('pause');
/** Places calls again after a pause; answers the state once recorded. */
export const resumeCampaignUpdate = defineUpdate<CampaignState, []>('resume');
/**
 * Places nothing new, ever: calls under way go on to their end (none is hung up), then the campaign
 * ends `canceled`. Answers the state once recorded.
 */
export const cancelCampaignUpdate = defineUpdate<CampaignState, []>('cancel');
/** The campaign's state (the Web UI's query tab, tests). */
export const campaignStateQuery = defineQuery<CampaignState>('state');
/**
 * A campaign's call to its campaign, sent as the call ends and before its end is recorded: the
 * carrier's call is over, so its slot is free (`status` and `endedReason` as the call will record).
 */
export interface CampaignCallEnded {
  callId: string;
  status: string;
  endedReason: string | null;
}
export const campaignCallEndedSignal = defineSignal<[CampaignCallEnded]>('campaignCallEnded');
