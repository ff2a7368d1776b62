import type { WebSocket } from 'ws';
import type { HangupReason } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import {
  CallerAudio,
  Conversation,
  type ConversationSession,
  isBackchannel,
  STREAM_CLAIM_MS,
  StreamHold,
} from '../../sessions';
import { decodeMulaw, InboundPhoneAudio } from '../audio';
import type { CarrierMediaEvent, CarrierMediaProtocol } from '../carriers/carrier';
import { CallRecordingTap } from '../recordings/recording-tap';
import { EchoGate, levelDb } from './echo-gate';
import { PhoneReplyOut } from './phone-reply-out';
import { CarrierPlayout } from './playout';

/** What the call's stream learns when the carrier starts it: the conversation it carries. */
export interface PhoneCallSetup extends ConversationSession {
  callId: string;
  /** Keep each turn's audio (the session's `recording`). */
  recording: boolean;
}

/** The `start` message, as far as finding the call goes: the stream's id and the call token. */
export type StreamStart = Omit<Extract<CarrierMediaEvent, { event: 'start' }>, 'event'>;

/** What a media stream asks of the calls it belongs to. */
export interface MediaCallDeps {
  /** Checks the stream's call token and gives the call's conversation; throws to refuse the stream. */
  connect(start: StreamStart): Promise<PhoneCallSetup>;
  /** The line is gone (the carrier's `stop`, or the socket closed). */
  ended(callId: string): void;
  /** Hangs the call up through its workflow (its session ended), saying why. */
  hangUp(callId: string, reason: HangupReason): Promise<void>;
}

/**
 * One phone call's media stream (docs/telephony.md "The media stream"), whatever its carrier: the
 * carrier's JSON messages, read and written by its protocol (`CarrierMediaProtocol`: Twilio's,
 * Telnyx's), in and out of the same turn engine the live stream uses. The caller's μ-law frames become the engine's
 * 16 kHz audio (speech detection, transcription, barge-in); the conversation's replies go back as
 * μ-law frames paced ahead of playback, a `mark` after each segment (the echo says it was heard),
 * and `clear` when the caller interrupts. The call holds its session like a live stream does.
 */
export class CarrierMediaCall {
  private streamId?: string;
  private setup?: PhoneCallSetup;
  private conversation?: Conversation;
  private audio?: CallerAudio;
  private inbound?: InboundPhoneAudio;
  private replyOut?: PhoneReplyOut;
  private playout?: CarrierPlayout;
  private hold?: StreamHold;
  /** The call's two-channel recording, when the session records. */
  private recording?: CallRecordingTap;
  private readonly echoGate = new EchoGate();
  private renewTimer?: NodeJS.Timeout;
  private ending = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly ws: WebSocket,
    private readonly protocol: CarrierMediaProtocol,
    private readonly deps: MediaCallDeps,
  ) {
    ws.on('message', (data) => this.receive(data as Buffer));
    ws.on('close', () => void this.end());
    ws.on('error', (error) => ctx.logger.info({ err: error }, 'a phone media stream broke off'));
  }

  private receive(data: Buffer): void {
    const parsed = this.protocol.parse(data);
    if (!parsed.ok) {
      this.ctx.logger.warn(
        { error: parsed.error, callId: this.setup?.callId },
        'a media message was refused',
      );
      return;
    }
    const message = parsed.event;
    const callId = this.setup?.callId;
    if (message.event === 'start') void this.start(message).catch((error) => this.refuse(error));
    else if (message.event === 'media') this.hear(message.payload, message.timestampMs);
    else if (message.event === 'mark') this.replyOut?.confirmed(message.name);
    else if (message.event === 'stop') void this.end();
    else if (message.event === 'dtmf')
      this.ctx.logger.info({ callId, digit: message.digit }, 'a key was pressed');
    else if (message.event === 'error')
      this.ctx.logger.warn({ callId, detail: message.detail }, 'the carrier reports a stream error');
  }

  /** The stream starts: the call's conversation is found, its session held, and the caller greeted. */
  private async start({ streamId, callToken }: StreamStart): Promise<void> {
    if (this.streamId) return;
    this.streamId = streamId;
    const startedAt = Date.now();
    const setup = await this.deps.connect({ streamId, callToken });
    this.setup = setup;
    this.hold = new StreamHold(this.ctx, { sessionId: setup.sessionId, claimId: setup.callId });
    if (!(await this.hold.claimSession())) throw new Error(`session ${setup.sessionId} is held elsewhere`);
    this.inbound = await InboundPhoneAudio.create();
    if (this.ending) return void this.end();
    this.renewTimer = setInterval(() => void this.keepHold(), STREAM_CLAIM_MS / 3);
    if (setup.recording) this.recording = new CallRecordingTap(this.ctx, setup.callId, startedAt);
    this.wire(setup);
    this.conversation?.greet(setup.callId);
  }

  /** The playout, the reply's way out, the conversation and the caller's audio, wired together. */
  private wire(setup: PhoneCallSetup): void {
    const log = this.ctx.logger;
    this.playout = new CarrierPlayout({
      media: (frame, playsAt) => {
        this.echoGate.agentPlayed(levelDb(frame, decodeMulaw), playsAt);
        this.recording?.agentFrame(frame, playsAt);
        this.sendToCarrier(this.protocol.media(this.streamId!, frame));
      },
      mark: (name) => this.sendToCarrier(this.protocol.mark(this.streamId!, name)),
    });
    const replyOut = new PhoneReplyOut(
      this.playout,
      () => {
        this.recording?.cleared();
        this.sendToCarrier(this.protocol.clear(this.streamId!));
      },
      (error) => log.warn({ err: error, callId: setup.callId }, 'reply audio could not go to the carrier'),
    );
    this.replyOut = replyOut;
    const conversation = new Conversation(this.ctx, setup, {
      send: (m) => replyOut.send(m),
      sendAudio: (frame) => replyOut.sendAudio(frame),
      error: (code, message) => log.info({ callId: setup.callId, code, message }, 'a phone turn was refused'),
      playback: (turnId) => replyOut.playback(turnId),
      turnTaken: () => undefined,
      turnEnded: (turnId, { turn, replyAudio }) => {
        if (turn) void this.audio?.keepRecording(turn.index, turnId, replyAudio);
        else this.audio?.forget(turnId);
      },
    });
    this.conversation = conversation;
    const bargeInAfterMs = this.ctx.config.telephony.interruptMinSpeechMs;
    this.audio = new CallerAudio(
      this.ctx,
      { ...setup, bargeInAfterMs },
      {
        send: () => undefined,
        error: (code, message) => log.info({ callId: setup.callId, code, message }, 'caller audio refused'),
        isAgentSpeaking: () => conversation.speaking,
        isEcho: () => this.echoGate.echo,
        isBackchannel: (text) => isBackchannel(text, setup.backchannels),
        interrupt: () => conversation.interrupt(),
        utterance: (text, endedAt, turnId) => conversation.takeInput(text, endedAt, turnId),
      },
    );
  }

  /**
   * Renews the call's hold on its session, and notices a session that ended (idle: nothing said on
   * either side for SESSION_IDLE_TIMEOUT_S, or POST /sessions/:id/end): the call hangs up, and
   * says why (`idle_timeout`, `session_ended`).
   */
  private async keepHold(): Promise<void> {
    try {
      const status = await this.hold?.renew();
      if (!status || status.status === 'active' || this.ending || !this.setup) return;
      const reason = status.endReason === 'idle_timeout' ? 'idle_timeout' : 'session_ended';
      this.ctx.logger.info({ callId: this.setup.callId, reason }, 'the call’s session ended: hanging up');
      await this.deps.hangUp(this.setup.callId, reason);
      await this.end();
    } catch (error) {
      this.ctx.logger.warn({ err: error, callId: this.setup?.callId }, 'could not renew the call’s hold');
    }
  }

  /** A caller frame (μ-law, base64): the engine hears it at 16 kHz; the recording keeps it as it came. */
  private hear(payload: string, timestampMs?: number): void {
    if (!this.inbound || !this.audio || this.ending) return;
    const mulaw = Buffer.from(payload, 'base64');
    this.recording?.callerFrame(mulaw, timestampMs);
    const pcm = this.inbound.push(mulaw);
    if (!pcm.length) return;
    this.echoGate.callerHeard(levelDb(pcm));
    this.audio.push(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  }

  private sendToCarrier(text: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(text);
  }

  /** The stream could not start (a bad call token, a session held elsewhere): it closes. */
  private refuse(error: unknown): void {
    this.ctx.logger.warn({ err: error, callId: this.setup?.callId }, 'a phone media stream was refused');
    this.ws.close(1008, 'refused');
    void this.end();
  }

  /** Ends once: the turn under way is recorded (as interrupted), the audio let go, the session freed. */
  private async end(): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    clearInterval(this.renewTimer);
    this.playout?.close();
    try {
      await this.conversation?.stop();
      await this.audio?.close();
      await this.replyOut?.close();
      await this.recording?.close();
    } catch (error) {
      this.ctx.logger.warn({ err: error, callId: this.setup?.callId }, 'a phone call did not end cleanly');
    } finally {
      this.inbound?.dispose();
      await this.hold?.release();
      if (this.setup) this.deps.ended(this.setup.callId);
      if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000, 'call ended');
    }
  }
}
