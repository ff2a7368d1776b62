import type { FinishedExecution } from '../../voice-workflows';
import type { TurnRecord } from '../turn-types';
import type { CallControls } from './call-tools';
import type { TurnHold } from './turn-hold';

/** What the engine tells a transport while a turn is answered (docs/voice-stream.md lists the events). */
export interface TurnListener {
  /** Reply text as it is decided: the model's text as it streams, or a whole reply at once. */
  text(text: string): void;
  /** A tool call the model made is starting (in the session's workflow). */
  toolStarted(call: { id: string; name: string; arguments: string }): void;
  /** A tool call finished (it is recorded in the workflow's history and with the turn). */
  toolFinished(call: {
    id: string;
    name: string;
    success: boolean;
    durationMs: number;
    error?: string;
  }): void;
  /** A tool has not answered within HOLD_PHRASE_AFTER_MS: the agent says this meanwhile. */
  hold(phrase: string): void;
  /** A sound the agent plays in the reply, after what it said so far (`press_digits`' tones). */
  sound?(sound: { pcm: Int16Array; sampleRate: number }): void;
  /** Answers once what the agent said so far has played to the caller (or the reply was interrupted). */
  drain?(): Promise<void>;
  /** A voice command settled a node (`nodeId`), or its run ended (`nodeId: null`). */
  workflowStep(step: {
    workflowName: string;
    executionId: string;
    nodeId: string | null;
    nodeType: string | null;
    status: string;
    speech: string[];
  }): void;
}

/** A listener that hears nothing (the REST turn). */
export const silentListener: TurnListener = {
  text: () => undefined,
  toolStarted: () => undefined,
  toolFinished: () => undefined,
  hold: () => undefined,
  workflowStep: () => undefined,
};

/** One turn to answer. */
export interface TurnRequest {
  sessionId: string;
  /** The turn's id: the id of the Workflow Update that records it (src/sessions/turn/turn-store.ts). */
  turnId: string;
  /** What the caller said. */
  text: string;
  /** When the turn began (ms). */
  startedAt: number;
  /** Aborted when the caller interrupts: the model stops, a tool call already started finishes. */
  signal: AbortSignal;
  listener: TurnListener;
  /**
   * The turn's hold on its session (src/sessions/turn/turn-hold.ts), begun before the model is asked;
   * the transport releases it once the turn is recorded. Every transport passes one: without it the
   * session's idle timer may end the session under a slow turn.
   */
  hold?: Pick<TurnHold, 'begin'>;
  /** What the call lets the agent do to it (a phone call's): its call tools are offered to the model. */
  call?: CallControls;
}

/** How the agent answered: the turn to record, but for what of it was spoken (the transport knows). */
export type TurnAnswer = Omit<TurnRecord, 'index' | 'spokenText'> & {
  /** A voice command interpreted in the API (no side effects), written when the turn is recorded. */
  command?: FinishedExecution;
};
