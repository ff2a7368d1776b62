import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../common/context';
import type { Plan } from '../../config/env';
import type { SpeechToText } from '../../outbound/transcription';
import { voiceStreamTurns } from '../../telemetry/metrics';
import type { CallControls, TransferDestination } from '../turn/call-tools';
import { isBackchannel } from './backchannels';
import type { ClientTokenOwner } from './client-token';
import type { KeypadOptions } from './keypad-collector';
import type { ServerMessage, StreamErrorCode } from './protocol';
import type { ReplyPlayback } from './reply-playback';
import { speakLine } from './spoken-line';
import { holdSessionUntil, runStreamTurn, type StreamTurnResult } from './stream-turn';
import { spendStreamTurn } from './turn-budget';

/** What a conversation knows of its session. */
export interface ConversationSession {
  sessionId: string;
  owner: ClientTokenOwner;
  /** The account's plan: its turns spend the plan's budget. */
  plan: Plan;
  greeting: string;
  voiceId: string;
  backchannels: string[];
  /** Where the agent may transfer the call (the persona's `telephony.transferDestinations`). */
  transferDestinations?: TransferDestination[];
  /** How the caller's keys are collected (the persona's `telephony.keypad`; the defaults when unset). */
  keypad?: KeypadOptions;
  /** The session's speech-to-text (sessionSpeechToText; null: none); the platform's when not given. */
  speechToText?: SpeechToText | null;
}

/** Where a conversation's events and reply audio go: the transport that carries the call. */
export interface ConversationOutput {
  send(message: ServerMessage): void;
  /** Reply audio, in the format of the `reply.audio` header before it. */
  sendAudio(frame: Uint8Array): void;
  /** An `error` event (rate-limited by the transport). */
  error(code: StreamErrorCode, message: string): void;
  /** The playback of reply `turnId` (`greeting` for the greeting); reckoned in real time when not given. */
  playback?(turnId: string): ReplyPlayback;
  /** A turn was taken (it spent the account's budget). */
  turnTaken(): void;
  /** A turn is over: recorded (with the reply audio sent) or not. */
  turnEnded(turnId: string, result: StreamTurnResult): void;
  /** What the call lets the agent do to it (a phone line's): the model is offered its call tools. */
  callControls?: CallControls;
}

/** Turns a call may have waiting behind the one under way; more is TURN_IN_PROGRESS. */
export const MAX_WAITING_TURNS = 3;
/** The turn id of a call's closing line (`Conversation.closeWith`). */
const CLOSING_TURN_ID = 'closing';

/**
 * The talk of one live call, whatever carries it (the live stream, a phone line): the greeting, then
 * the caller's text and speech as turns, each spending the account's turn budget, one at a time and
 * in order, each answered by the turn engine (src/sessions/stream/stream-turn.ts); the caller's words
 * over the agent interrupt it, unless they are only a backchannel ("uh-huh").
 */
export class Conversation {
  /** The reply being spoken now, if any: what an interruption stops. */
  private speakingNow?: { turnId: string; controller: AbortController };
  private turns: Promise<void> = Promise.resolve();
  private waitingTurns = 0;
  /** No more input is taken (the call is ending). */
  private stopped = false;
  private handoffs = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly session: ConversationSession,
    private readonly out: ConversationOutput,
  ) {}

  /** The agent is speaking (a reply or the greeting plays). */
  get speaking(): boolean {
    return this.speakingNow !== undefined;
  }

  /** Greets the caller; the session is held until the greeting has played. */
  greet(callId: string): void {
    this.queue(() => this.speakLine('greeting', this.session.greeting));
    holdSessionUntil(this.ctx, this.session.sessionId, `greeting:${callId}`, this.turns);
  }

  /**
   * The caller said something: a turn, after the one before it, once it has spent the account's turn
   * budget (as a REST turn does); said over the agent, it interrupts.
   */
  takeInput(text: string, endedAt: number, turnId: string = randomUUID()): void {
    if (this.stopped) return;
    if (this.waitingTurns >= MAX_WAITING_TURNS) {
      voiceStreamTurns.labels('busy').inc();
      this.out.error('TURN_IN_PROGRESS', 'Too many turns waiting: wait for the agent to answer');
      return;
    }
    if (this.speakingNow) {
      if (isBackchannel(text, this.session.backchannels)) return;
      this.interrupt();
    }
    const spent = spendStreamTurn(this.ctx, this.session);
    this.waitingTurns++;
    this.queue(async () => {
      this.waitingTurns--;
      const budget = await spent;
      if (!budget.allowed) {
        voiceStreamTurns.labels('rate_limited').inc();
        this.out.turnEnded(turnId, {});
        return this.out.error(budget.code, budget.message);
      }
      voiceStreamTurns.labels('taken').inc();
      this.out.turnTaken();
      this.out.turnEnded(turnId, await this.runTurn(turnId, text, endedAt));
    });
    holdSessionUntil(this.ctx, this.session.sessionId, turnId, this.turns);
  }

  /**
   * Stops the reply being spoken: no more audio, the model stops, the turn is recorded as
   * interrupted. A call's closing line is not talked over.
   */
  interrupt(): void {
    if (this.speakingNow?.turnId === CLOSING_TURN_ID) return;
    this.silence();
  }

  /** Says `line` as the agent's first words on a stream that is no call's start (the caller is back). */
  sayLine(line: string): void {
    this.queue(() => this.speakLine(`line-${++this.handoffs}`, line));
  }

  /**
   * The call's last words (its time is up): no more input is taken, the reply under way stops, and
   * `line` is said whole; resolves once it has played.
   */
  async closeWith(line: string): Promise<void> {
    this.stopped = true;
    this.silence();
    this.queue(() => this.speakLine(CLOSING_TURN_ID, line));
    await this.turns;
  }

  /**
   * Another agent takes the call (a handoff): after the turn under way, it speaks in its own voice,
   * its greeting first, and its backchannels are the ones heard as only listening.
   */
  handOff(agent: { voiceId: string; greeting: string; backchannels: string[] }): void {
    const handoff = `handoff-${++this.handoffs}`;
    this.queue(async () => {
      this.session.voiceId = agent.voiceId;
      this.session.backchannels = agent.backchannels;
      await this.speakLine(handoff, agent.greeting);
    });
  }

  /** Takes no more input, stops the reply, and answers once the turns under way are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.silence();
    await this.turns;
  }

  private silence(): void {
    this.speakingNow?.controller.abort();
    this.speakingNow = undefined;
  }

  /** Runs `work` after the turns before it; a failure is logged and the next turn still runs. */
  private queue(work: () => Promise<void>): void {
    this.turns = this.turns
      .then(work)
      .catch((error) =>
        this.ctx.logger.error({ err: error, sessionId: this.session.sessionId }, 'a streamed turn failed'),
      );
  }

  private async runTurn(turnId: string, text: string, startedAt: number): Promise<StreamTurnResult> {
    if (this.stopped) return {};
    const controller = new AbortController();
    this.speakingNow = { turnId, controller };
    return runStreamTurn({
      ctx: this.ctx,
      sessionId: this.session.sessionId,
      turnId,
      text,
      startedAt,
      voiceId: this.session.voiceId,
      signal: controller.signal,
      playback: this.out.playback?.(turnId),
      send: (m) => this.out.send(m),
      sendAudio: (frame) => this.out.sendAudio(frame),
      call: this.out.callControls,
      onReplyOver: () => {
        if (this.speakingNow?.turnId === turnId) this.speakingNow = undefined;
      },
    }).finally(() => {
      if (this.speakingNow?.turnId === turnId) this.speakingNow = undefined;
    });
  }

  /** Says a line that is no reply (the greeting, a closing line) as turn `turnId`, until played. */
  private async speakLine(turnId: string, line: string): Promise<void> {
    const controller = new AbortController();
    this.speakingNow = { turnId, controller };
    await speakLine({
      ctx: this.ctx,
      line,
      turnId,
      voiceId: this.session.voiceId,
      signal: controller.signal,
      playback: this.out.playback?.(turnId),
      send: (m) => this.out.send(m),
      sendAudio: (frame) => this.out.sendAudio(frame),
    });
    if (this.speakingNow?.turnId === turnId) this.speakingNow = undefined;
  }
}
