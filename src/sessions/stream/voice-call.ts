import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { AppContext } from '../../common/context';
import { CallEnding, type LiveCall } from '../../common/live-calls';
import { isDatabaseUnavailable } from '../../http/database-unavailable';
import { keypadInput } from '../keypad-input';
import { endSession } from '../sessions.service';
import { isBackchannel } from './backchannels';
import { CallLog, type CloseReason } from './call-log';
import { CallerAudio } from './caller-audio';
import { Conversation, type ConversationSession } from './conversation';
import { FrameIntake } from './frame-intake';
import { KeypadCollector } from './keypad-collector';
import { isPersonaDestination, transferToPersona } from './persona-handoff';
import { type ServerMessage, ServerMessage as ServerMessageSchema, type StreamErrorCode } from './protocol';
import { STREAM_CLAIM_MS, StreamHold } from './stream-hold';
import { StreamSocket } from './stream-socket';

/** What a call knows of its session when it opens. */
export interface CallSession extends ConversationSession {
  /** The account's live-stream slot this call holds (taken at the upgrade). */
  leaseId: string;
  /** Keep each turn's audio (the session's `recording`). */
  recording: boolean;
}

/**
 * One live call on one session's stream (docs/voice-stream.md): it holds the session (one stream per
 * session, no REST turn meanwhile) and one of its account's stream slots, and carries the call's
 * conversation (src/sessions/stream/conversation.ts: the greeting, the caller's text and speech as
 * turns, interruptions) over the stream's protocol. Every frame passes the stream's budgets first
 * (src/sessions/stream/stream-budget.ts).
 */
export class VoiceCall implements LiveCall {
  private readonly callId = randomUUID();
  private readonly conversation: Conversation;
  private renewTimer?: NodeJS.Timeout;
  /** No more input is taken (the call is ending). */
  private inputClosed = false;
  private readonly ending = new CallEnding();
  /** Resolves once the call has ended (end() has run to its end). */
  readonly ended = this.ending.done;
  private readonly socket: StreamSocket;
  private readonly hold: StreamHold;
  private readonly log: CallLog;
  private readonly intake: FrameIntake;
  /** The caller's keys (`input.dtmf`), an entry at a time, as a phone call collects them. */
  private readonly keypad: KeypadCollector;
  readonly audio: CallerAudio;

  constructor(
    private readonly ctx: AppContext,
    ws: WebSocket,
    private readonly session: CallSession,
  ) {
    // under test, every message is checked against the protocol (as every HTTP answer is)
    const check =
      ctx.config.env === 'test' ? (m: ServerMessage) => void ServerMessageSchema.parse(m) : undefined;
    this.socket = new StreamSocket(ws, check);
    this.hold = new StreamHold(ctx, {
      sessionId: session.sessionId,
      claimId: this.callId,
      leaseId: session.leaseId,
    });
    this.log = new CallLog(ctx, { sessionId: session.sessionId, accountId: session.owner.accountId });
    this.conversation = new Conversation(ctx, session, {
      send: (m) => this.send(m),
      sendAudio: (frame) => this.socket.sendAudio(frame),
      error: (code, message) => this.socket.error(code, message),
      turnTaken: () => this.log.turns++,
      turnEnded: (turnId, { turn, replyAudio }) => {
        // kept off the turns' path: the next turn does not wait for an MP3 encoding
        if (turn) void this.audio.keepRecording(turn.index, turnId, replyAudio);
        else this.audio.forget(turnId);
      },
      // on the live stream, the agent may hand the call to another persona (phone lines do the rest)
      callControls: {
        destinations: (session.transferDestinations ?? []).filter(isPersonaDestination),
        transfer: (request) => transferToPersona(ctx, this.conversation, session.sessionId, request),
      },
    });
    this.audio = new CallerAudio(ctx, session, {
      send: (m) => this.send(m),
      error: (code, message, refused) => this.intake.notice(code, message, refused),
      isAgentSpeaking: () => this.conversation.speaking,
      isBackchannel: (text) => isBackchannel(text, session.backchannels),
      interrupt: () => this.conversation.interrupt(),
      utterance: (text, endedAt, turnId) => this.conversation.takeInput(text, endedAt, turnId),
    });
    this.keypad = new KeypadCollector(session.keypad ?? {}, (keys) =>
      this.conversation.takeInput(keypadInput(keys), Date.now()),
    );
    this.intake = new FrameIntake(this.socket, {
      audio: (bytes) => this.audio.push(bytes),
      message: (message) => {
        if (message.type === 'input.text') this.conversation.takeInput(message.text, Date.now());
        else if (message.type === 'input.dtmf') for (const key of message.digits) this.keypad.press(key);
        else if (message.type === 'interrupt') this.conversation.interrupt();
        else void this.end('ended');
      },
    });
  }

  /**
   * Claims the session and greets the caller; a session already held gets SESSION_BUSY and is closed.
   * Frames that arrive meanwhile wait (within the frame budget), and are taken once the greeting is queued.
   */
  async start(): Promise<void> {
    const early: [RawData, boolean][] = [];
    let started = false;
    const ws = this.socket.ws;
    ws.on('message', (data, isBinary) => {
      if (!this.intake.admit()) return;
      if (started) this.intake.take(data, isBinary);
      else early.push([data, isBinary]);
    });
    ws.on('close', (code) => void this.end('disconnected', 0, code));
    // a frame ws refuses (over MAX_PAYLOAD_BYTES, malformed) is an 'error' before ws closes the stream
    // (1009, 1002): unheard, it would be an uncaught exception that ends the API process
    ws.on('error', (error) =>
      this.ctx.logger.info({ err: error, sessionId: this.session.sessionId }, 'a voice stream broke off'),
    );
    this.log.opened();
    if (!(await this.hold.claimSession())) {
      this.log.outcome('busy');
      this.fail('SESSION_BUSY', 'This session already has a live stream, or is answering a turn', 4409);
      return;
    }
    // the client may have left while the session was claimed: end() lets it go
    if (this.inputClosed || !this.socket.open) return void this.end('disconnected');
    this.renewTimer = setInterval(() => void this.keepHold(), STREAM_CLAIM_MS / 3);
    this.send({
      type: 'session.ready',
      sessionId: this.session.sessionId,
      greeting: this.session.greeting,
      input: { encoding: 'pcm_s16le', sampleRate: 16_000, channels: 1, maxFrameBytes: 64 * 1024 },
      speechToText: this.audio.transcribes,
    });
    this.conversation.greet(this.callId);
    started = true;
    for (const [data, isBinary] of early.splice(0)) this.intake.take(data, isBinary);
  }

  /**
   * Ends the call once, whichever way it ends (the caller's `end`, a disconnect, the session ending by
   * itself): the turn under way is recorded (as interrupted), the caller's audio released, the session
   * ended if asked, the session and the stream slot let go, and the call logged.
   */
  private end(reason: 'ended' | 'disconnected' | 'idle_timeout', turnCount = 0, code?: number) {
    return this.ending.once(() => this.finish(reason, turnCount, code));
  }

  /** The server is shutting down: the stream closes (1001) and the call ends as if the caller left. */
  shutdown(): Promise<void> {
    this.socket.close(1001, 'server shutting down');
    return this.end('disconnected', 0, 1001);
  }

  private async finish(reason: 'ended' | 'disconnected' | 'idle_timeout', turnCount: number, code?: number) {
    this.inputClosed = true;
    clearInterval(this.renewTimer);
    this.keypad.cancel();
    this.socket.dispose();
    try {
      await this.conversation.stop();
      await this.audio.close();
      if (reason !== 'disconnected') await this.closeSession(reason, turnCount);
    } catch (error) {
      this.ctx.logger.warn(
        { err: error, sessionId: this.session.sessionId },
        'a voice stream did not end cleanly',
      );
    } finally {
      await this.hold.release();
      const outcome: CloseReason = this.socket.dropped ?? reason;
      this.log.closed(outcome, this.socket, code);
    }
  }

  /** `session.ended`, then the stream closes; `end` also ends the session itself. */
  private async closeSession(reason: 'ended' | 'idle_timeout', turnCount: number): Promise<void> {
    if (reason === 'ended') {
      const em = this.ctx.orm.em.fork();
      turnCount = (await endSession(this.ctx, em, this.session.owner, this.session.sessionId)).turnCount;
    }
    this.send({ type: 'session.ended', sessionId: this.session.sessionId, reason, turnCount });
    this.socket.close(1000, 'session ended');
  }

  /** Renews the stream's holds, and notices a session that ended (idle timeout, POST /end). */
  private async keepHold(): Promise<void> {
    try {
      const status = await this.hold.renew();
      if (this.ending.started) return;
      // ended elsewhere: the call says so and closes (ending an ended session only reads it)
      if (status.status !== 'active') {
        await this.end(status.endReason === 'idle_timeout' ? 'idle_timeout' : 'ended', status.turnCount);
      }
    } catch (error) {
      this.ctx.logger.warn({ err: error, sessionId: this.session.sessionId }, 'could not renew the stream');
    }
  }

  send(message: ServerMessage): void {
    this.socket.send(message);
  }

  /**
   * The call could not start: an `error` and the stream closes with a reason. A database outage is
   * `SERVICE_UNAVAILABLE` with close code 1013 (try again later); anything else `INTERNAL`, 1011.
   */
  failToStart(error: unknown): void {
    const log = { err: error, sessionId: this.session.sessionId };
    if (isDatabaseUnavailable(error)) {
      this.ctx.logger.warn(log, 'a voice stream could not start: the database is unavailable');
      this.fail('SERVICE_UNAVAILABLE', 'The database is unavailable; reconnect shortly', 1013);
    } else {
      this.ctx.logger.error(log, 'a voice stream failed to start');
      this.fail('INTERNAL', 'The stream could not start', 1011);
    }
    this.log.outcome('failed');
  }

  private fail(code: StreamErrorCode, message: string, closeCode: number): void {
    this.inputClosed = true;
    this.socket.send({ type: 'error', code, message });
    this.socket.close(closeCode, code);
  }
}
