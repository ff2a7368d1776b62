import type { CallOutcome } from './statuses';

/**
 * What a campaign makes of a call's end, and whether it tries again. Pure: the campaign's workflow
 * and its activities both use it.
 */

/** A campaign's retry plan (docs/campaigns.md "Retries"). */
export interface RetryPlan {
  onBusy: boolean;
  onNoAnswer: boolean;
  onVoicemail: boolean;
  /** Attempts per contact in all, the first included. */
  maxAttempts: number;
  /** Campaign minutes (CAMPAIGN_MINUTE_MS) between an attempt's end and the next. */
  delayMinutes: number;
}

/** The end of a call as its workflow answers it (its final CallState). */
export interface CallEnd {
  status: string;
  endedReason: string | null;
}

/**
 * A call's outcome: `voicemail` when it ended at an answering machine (`endedReason: voicemail`),
 * `answered` when it completed, `busy` and `no-answer` as the carrier said, `failed` otherwise
 * (refused, unreachable, canceled before it was placed).
 */
export function outcomeOfCall(end: CallEnd): CallOutcome {
  if (end.endedReason === 'voicemail') return 'voicemail';
  switch (end.status) {
    case 'completed':
      return 'answered';
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no-answer';
    default:
      return 'failed';
  }
}

/** Whether an attempt with this outcome is followed by another, per the plan. */
export function retries(plan: RetryPlan, outcome: CallOutcome, attempt: number): boolean {
  if (attempt >= plan.maxAttempts) return false;
  if (outcome === 'busy') return plan.onBusy;
  if (outcome === 'no-answer') return plan.onNoAnswer;
  if (outcome === 'voicemail') return plan.onVoicemail;
  return false;
}
