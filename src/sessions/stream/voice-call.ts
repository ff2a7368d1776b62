import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { AppContext } from '../../common/context';
import type { Owner } from '../../common/owner';
import { endSession } from '../sessions.service';
import { claimTurn, releaseTurn, renewClaim } from '../turn-claims';
import { isBackchannel } from './backchannels';
import { CallerAudio } from './caller-audio';
import { parseClientFrame } from './frames';
import { type ServerMessage, ServerMessage as ServerMessageSchema, type StreamErrorCode } from './protocol';
import { ReplySpeech } from './reply-speech';
import { runStreamTurn } from './stream-turn';

/** What a call knows of its session when it opens. */
export interface CallSession {
  sessionId: string;
  owner: Owner;
  greeting: string;
  voiceId: string;
  backchannels: string[];
  /** Keep each turn's audio (the session's `recording`). */
  recording: boolean;
}

/** A live stream holds its session for this long, renewed every third of it while it is open. */
const STREAM_CLAIM_MS = 30_000;

/**
 * One live call on one session's stream (docs/voice-stream.md): it holds the session (one stream per
 * session, no REST turn meanwhile), greets, takes the caller's text and speech as turns, one at a
 * time and in order, and stops the agent when the caller interrupts (or talks over it, unless only to
 * say "uh-huh").
 */
export class VoiceCall {
  private readonly callId = randomUUID();
  /** The reply being spoken now, if any: what an interruption stops. */
  private speaking?: { turnId: string; controller: AbortController };
  private turns: Promise<void> = Promise.resolve();
  private renewTimer?: NodeJS.Timeout;
  private ended = false;
  readonly audio: CallerAudio;

  constructor(
    private readonly ctx: AppContext,
    private readonly ws: WebSocket,
    private readonly session: CallSession,
  ) {
    this.audio = new CallerAudio(ctx, session, {
      send: (m) => this.send(m),
      isAgentSpeaking: () => this.speaking !== undefined,
      isBackchannel: (text) => isBackchannel(text, session.backchannels),
      interrupt: () => this.interrupt(),
      utterance: (text, endedAt, turnId) => this.takeInput(text, endedAt, turnId),
    });
  }

  /** Claims the session and greets the caller; a session already held gets SESSION_BUSY and is closed. */
  async start(): Promise<void> {
    const claim = { sessionId: this.session.sessionId, claimId: this.callId, ttlMs: STREAM_CLAIM_MS };
    if (!(await claimTurn(this.ctx, claim))) {
      this.fail('SESSION_BUSY', 'This session already has a live stream, or is answering a turn', 4409);
      return;
    }
    this.ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    this.ws.on('close', () => void this.onClose());
    this.renewTimer = setInterval(() => void this.keepClaim(), STREAM_CLAIM_MS / 3);
    await this.audio.start();
    this.send({
      type: 'session.ready',
      sessionId: this.session.sessionId,
      greeting: this.session.greeting,
      input: { encoding: 'pcm_s16le', sampleRate: 16_000, channels: 1, maxFrameBytes: 64 * 1024 },
      speechToText: this.audio.transcribes,
    });
    this.turns = this.speakGreeting();
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    if (isBinary) {
      this.audio.push(bytes);
      return;
    }
    const parsed = parseClientFrame(bytes);
    if (!parsed.ok) {
      this.sendError(parsed.code, parsed.message);
      return;
    }
    const message = parsed.message;
    if (message.type === 'input.text') this.takeInput(message.text, Date.now());
    else if (message.type === 'interrupt') this.interrupt();
    else void this.end('ended');
  }

  /** The caller said something: a turn, after the one before it; said over the agent, it interrupts. */
  private takeInput(text: string, endedAt: number, turnId: string = randomUUID()): void {
    if (this.ended) return;
    if (this.speaking) {
      if (isBackchannel(text, this.session.backchannels)) return;
      this.interrupt();
    }
    this.turns = this.turns.then(() => this.runTurn(turnId, text, endedAt));
  }

  private async runTurn(turnId: string, text: string, startedAt: number): Promise<void> {
    if (this.ended) return;
    const controller = new AbortController();
    this.speaking = { turnId, controller };
    const result = await runStreamTurn({
      ctx: this.ctx,
      sessionId: this.session.sessionId,
      turnId,
      text,
      startedAt,
      voiceId: this.session.voiceId,
      signal: controller.signal,
      send: (m) => this.send(m),
      sendAudio: (frame) => this.sendAudio(frame),
      onReplyOver: () => {
        if (this.speaking?.turnId === turnId) this.speaking = undefined;
      },
    }).finally(() => {
      if (this.speaking?.turnId === turnId) this.speaking = undefined;
    });
    if (result.turn) await this.audio.keepRecording(result.turn.index, turnId, result.replyAudio);
  }

  /** Stops the reply being spoken: no more audio, the model stops, the turn is recorded as interrupted. */
  interrupt(): void {
    this.speaking?.controller.abort();
    this.speaking = undefined;
  }

  private async speakGreeting(): Promise<void> {
    const controller = new AbortController();
    this.speaking = { turnId: 'greeting', controller };
    const speech = new ReplySpeech({
      turnId: 'greeting',
      voiceId: this.session.voiceId,
      synthesize: (voiceId, text) => this.ctx.speech.speakPcm(voiceId, text),
      send: (m) => this.send(m),
      sendAudio: (frame) => this.sendAudio(frame),
      signal: controller.signal,
      onError: (error) => this.ctx.logger.warn({ err: error }, 'could not synthesize the greeting'),
    });
    speech.push(this.session.greeting);
    await speech.finish();
    const interrupted = controller.signal.aborted;
    const text = interrupted ? speech.spokenText() : this.session.greeting;
    this.send({ type: 'reply.done', turnId: 'greeting', text, interrupted });
    // the caller's first words are a turn; said over the greeting, they interrupt it
    await speech.played();
    if (this.speaking?.turnId === 'greeting') this.speaking = undefined;
  }

  /** Ends the call: the turn under way is recorded (as interrupted), then the session ends if asked. */
  private async end(reason: 'ended' | 'disconnected'): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.interrupt();
    clearInterval(this.renewTimer);
    await this.turns.catch(() => undefined);
    await this.audio.close();
    let turnCount = 0;
    if (reason === 'ended') {
      try {
        const view = await endSession(
          this.ctx,
          this.ctx.orm.em.fork(),
          this.session.owner,
          this.session.sessionId,
        );
        turnCount = view.turnCount;
      } catch (error) {
        this.ctx.logger.warn({ err: error, sessionId: this.session.sessionId }, 'could not end the session');
      }
      this.send({ type: 'session.ended', sessionId: this.session.sessionId, reason: 'ended', turnCount });
      this.ws.close(1000, 'session ended');
    }
    await releaseTurn(this.ctx, { sessionId: this.session.sessionId, claimId: this.callId }).catch(
      () => undefined,
    );
  }

  private onClose(): Promise<void> {
    return this.end('disconnected');
  }

  /** Renews the stream's hold on its session, and notices a session that ended (idle timeout). */
  private async keepClaim(): Promise<void> {
    const claim = { sessionId: this.session.sessionId, claimId: this.callId, ttlMs: STREAM_CLAIM_MS };
    try {
      const [renewed, status] = await Promise.all([renewClaim(this.ctx, claim), this.sessionStatus()]);
      if (status.status !== 'active') {
        this.ended = true;
        this.interrupt();
        clearInterval(this.renewTimer);
        const reason = status.endReason === 'idle_timeout' ? 'idle_timeout' : 'ended';
        this.send({
          type: 'session.ended',
          sessionId: this.session.sessionId,
          reason,
          turnCount: status.turnCount,
        });
        this.ws.close(1000, 'session ended');
      } else if (!renewed) {
        // the hold lapsed (the database was away longer than its lease): take it again
        await claimTurn(this.ctx, claim);
      }
    } catch (error) {
      this.ctx.logger.warn({ err: error, sessionId: this.session.sessionId }, 'could not renew the stream');
    }
  }

  private async sessionStatus() {
    const [row] = await this.ctx.orm.em
      .getConnection()
      .execute('select status, end_reason, turn_count from sessions where id = ?', [this.session.sessionId]);
    return { status: row?.status, endReason: row?.end_reason, turnCount: Number(row?.turn_count ?? 0) };
  }

  send(message: ServerMessage): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    // under test, every message is checked against the protocol (as every HTTP answer is)
    if (this.ctx.config.env === 'test') ServerMessageSchema.parse(message);
    this.ws.send(JSON.stringify(message));
  }

  private sendAudio(frame: Uint8Array): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame, { binary: true });
  }

  private sendError(code: StreamErrorCode, message: string): void {
    this.send({ type: 'error', code, message });
  }

  private fail(code: StreamErrorCode, message: string, closeCode: number): void {
    this.ended = true;
    this.sendError(code, message);
    this.ws.close(closeCode, code);
  }
}
