import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { AppContext } from '../../common/context';
import type { Owner } from '../../common/owner';
import { isDatabaseUnavailable } from '../../http/database-unavailable';
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
  /** No more input is taken (the call is ending). */
  private ended = false;
  /** end() has run (it runs once). */
  private ending = false;
  /** This call holds the session's claim (it must let it go). */
  private claimed = false;
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

  /**
   * Claims the session and greets the caller; a session already held gets SESSION_BUSY and is closed.
   * Frames that arrive meanwhile wait, and are taken once the greeting is queued.
   */
  async start(): Promise<void> {
    const early: [RawData, boolean][] = [];
    let started = false;
    this.ws.on('message', (data, isBinary) => {
      if (started) this.onFrame(data, isBinary);
      else early.push([data, isBinary]);
    });
    this.ws.on('close', () => void this.end('disconnected'));
    // a frame ws refuses (over MAX_PAYLOAD_BYTES, malformed) is an 'error' before ws closes the stream
    // (1009, 1002): unheard, it would be an uncaught exception that ends the API process
    this.ws.on('error', (error) =>
      this.ctx.logger.info({ err: error, sessionId: this.session.sessionId }, 'a voice stream broke off'),
    );
    const claim = { sessionId: this.session.sessionId, claimId: this.callId, ttlMs: STREAM_CLAIM_MS };
    if (!(await claimTurn(this.ctx, claim))) {
      this.ended = true;
      this.fail('SESSION_BUSY', 'This session already has a live stream, or is answering a turn', 4409);
      return;
    }
    this.claimed = true;
    // the client may have left while the session was claimed: end() lets it go, or, when end() ran
    // before the claim was taken (it found nothing to let go), the claim goes here
    if (this.ending) return void (await this.releaseClaim());
    if (this.ended || this.ws.readyState !== this.ws.OPEN) return void this.end('disconnected');
    this.renewTimer = setInterval(() => void this.keepClaim(), STREAM_CLAIM_MS / 3);
    await this.audio.start();
    this.send({
      type: 'session.ready',
      sessionId: this.session.sessionId,
      greeting: this.session.greeting,
      input: { encoding: 'pcm_s16le', sampleRate: 16_000, channels: 1, maxFrameBytes: 64 * 1024 },
      speechToText: this.audio.transcribes,
    });
    this.queue(() => this.speakGreeting());
    started = true;
    for (const [data, isBinary] of early.splice(0)) this.onFrame(data, isBinary);
  }

  /** Runs `work` after the turns before it; a failure is logged and the next turn still runs. */
  private queue(work: () => Promise<void>): void {
    this.turns = this.turns
      .then(work)
      .catch((error) =>
        this.ctx.logger.error({ err: error, sessionId: this.session.sessionId }, 'a streamed turn failed'),
      );
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
    this.queue(() => this.runTurn(turnId, text, endedAt));
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
    // kept off the turns' path: the next turn does not wait for an MP3 encoding
    if (result.turn) void this.audio.keepRecording(result.turn.index, turnId, result.replyAudio);
    else this.audio.forget(turnId);
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

  /**
   * Ends the call once, whichever way it ends (the caller's `end`, a disconnect, the session ending by
   * itself): the turn under way is recorded (as interrupted), the caller's audio released, the session
   * ended if asked, and the session let go.
   */
  private async end(reason: 'ended' | 'disconnected' | 'idle_timeout', turnCount = 0): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    this.ended = true;
    this.interrupt();
    clearInterval(this.renewTimer);
    try {
      await this.turns;
      await this.audio.close();
      if (reason !== 'disconnected') await this.closeSession(reason, turnCount);
    } catch (error) {
      this.ctx.logger.warn(
        { err: error, sessionId: this.session.sessionId },
        'a voice stream did not end cleanly',
      );
    } finally {
      if (this.claimed) await this.releaseClaim();
    }
  }

  /** Lets the session go (only this call's own claim), for the next stream or REST turn. */
  private async releaseClaim(): Promise<void> {
    await releaseTurn(this.ctx, { sessionId: this.session.sessionId, claimId: this.callId }).catch(
      () => undefined,
    );
  }

  /** `session.ended`, then the stream closes; `end` also ends the session itself. */
  private async closeSession(reason: 'ended' | 'idle_timeout', turnCount: number): Promise<void> {
    if (reason === 'ended') {
      const em = this.ctx.orm.em.fork();
      turnCount = (await endSession(this.ctx, em, this.session.owner, this.session.sessionId)).turnCount;
    }
    this.send({ type: 'session.ended', sessionId: this.session.sessionId, reason, turnCount });
    this.ws.close(1000, 'session ended');
  }

  /** Renews the stream's hold on its session, and notices a session that ended (idle timeout). */
  private async keepClaim(): Promise<void> {
    const claim = { sessionId: this.session.sessionId, claimId: this.callId, ttlMs: STREAM_CLAIM_MS };
    try {
      const [renewed, status] = await Promise.all([renewClaim(this.ctx, claim), this.sessionStatus()]);
      if (this.ending) return; // the call ended meanwhile: never take the session back
      if (status.status !== 'active') {
        // ended elsewhere (idle timeout, POST /end): the call says so and closes (ending an ended
        // session only reads it)
        await this.end(status.endReason === 'idle_timeout' ? 'idle_timeout' : 'ended', status.turnCount);
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
