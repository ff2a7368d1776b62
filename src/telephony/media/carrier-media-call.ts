import type { WebSocket } from 'ws';
import type { HangupReason } from '../../../workflows/messages';
import type { AppContext } from '../../common/context';
import { CallEnding, type LiveCall } from '../../common/live-calls';
import {
  CallerAudio,
  Conversation,
  isBackchannel,
  KeypadCollector,
  keypadInput,
  STREAM_CLAIM_MS,
  StreamHold,
  transferToPersona,
} from '../../sessions';
import { decodeMulaw, InboundPhoneAudio } from '../audio';
import type { CarrierMediaProtocol } from '../carriers/carrier';
import { CallRecordingTap } from '../recordings/recording-tap';
import { type AnsweringMachineDetector, screenOutboundAnswer } from './answering-machine';
import { AGENT_CLOSING_LINE, phoneCallControls } from './call-controls';
import { EchoGate } from './echo-gate';
import {
  CALL_CLOSING_LINE,
  type MediaCallDeps,
  type PhoneCallSetup,
  type StreamStart,
  transferReturnLine,
} from './media-call-setup';
import { PhoneReplyOut } from './phone-reply-out';
import { CarrierPlayout } from './playout';

/**
 * One phone call's media stream (docs/telephony.md "The media stream"), whatever its carrier: the
 * carrier's JSON messages, read and written by its protocol (`CarrierMediaProtocol`: Twilio's,
 * Telnyx's), in and out of the same turn engine the live stream uses. The caller's μ-law frames become the engine's
 * 16 kHz audio (speech detection, transcription, barge-in); the conversation's replies go back as
 * μ-law frames paced ahead of playback, a `mark` after each segment (the echo says it was heard),
 * and `clear` when the caller interrupts. The call holds its session like a live stream does.
 */
export class CarrierMediaCall implements LiveCall {
  private streamId?: string;
  private setup?: PhoneCallSetup;
  private conversation?: Conversation;
  private audio?: CallerAudio;
  private inbound?: InboundPhoneAudio;
  private replyOut?: PhoneReplyOut;
  private playout?: CarrierPlayout;
  private hold?: StreamHold;
  private keypad?: KeypadCollector;
  /** On an outbound call, until it is known who answered. */
  private machine?: AnsweringMachineDetector;
  /** The call's two-channel recording, when the session records. */
  private recording?: CallRecordingTap;
  private readonly echoGate = new EchoGate();
  /** When the stream started (wall clock, ms): the zero of the carrier's timestamps. */
  private origin = Date.now();
  private renewTimer?: NodeJS.Timeout;
  private closingTimer?: NodeJS.Timeout;
  private readonly ending = new CallEnding();
  /** The agent asked to end the call (`end_call`): once its turn's reply has played. */
  private agentEndsCall = false;
  /** The platform is ending the call (closeCall). */
  private closing = false;
  /** Resolves once the call has ended (end() has run to its end). */
  readonly ended = this.ending.done;

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
    else if (message.event === 'dtmf') this.keypad?.press(message.digit);
    else if (message.event === 'error')
      this.ctx.logger.warn({ callId, detail: message.detail }, 'the carrier reports a stream error');
  }

  /** The stream starts: the call's conversation is found, its session held, and the caller greeted. */
  private async start({ streamId, callToken }: StreamStart): Promise<void> {
    if (this.streamId) return;
    this.streamId = streamId;
    this.origin = Date.now();
    const setup = await this.deps.connect({ streamId, callToken });
    this.setup = setup;
    this.hold = new StreamHold(this.ctx, { sessionId: setup.sessionId, claimId: setup.callId });
    if (!(await this.hold.claimSession())) throw new Error(`session ${setup.sessionId} is held elsewhere`);
    this.inbound = await InboundPhoneAudio.create();
    if (this.ending.started) return void this.end();
    this.renewTimer = setInterval(() => void this.keepHold(), STREAM_CLAIM_MS / 3);
    if (setup.recording) this.recording = new CallRecordingTap(this.ctx, setup.callId, this.origin);
    this.wire(setup);
    // an outbound call listens first: a person is greeted, a machine gets the voicemail message
    if (setup.returnedFrom) this.conversation?.sayLine(transferReturnLine(setup.returnedFrom));
    else if (setup.answeringMachine)
      this.machine = screenOutboundAnswer(setup.answeringMachine, {
        answeredBy: () => this.deps.answeredBy(setup.callId),
        log: (who, why) => this.ctx.logger.info({ callId: setup.callId, answeredBy: who, why }, 'answered'),
        greet: () => this.conversation?.greet(setup.callId),
        leave: (message) => void this.closeCall(message, 'voicemail'),
      });
    else this.conversation?.greet(setup.callId);
    if (setup.maxDurationS)
      this.closingTimer = setTimeout(
        () => void this.closeCall(CALL_CLOSING_LINE, 'max_duration'),
        setup.maxDurationS * 1000,
      );
  }

  /**
   * The platform ends the call: no more input, `line` said whole (the reply under way stopped), or
   * the turns under way finished when there is none; then the call hangs up through its workflow,
   * saying why. At `maxDurationS` (the workflow holds the same timer, and hangs up itself if this
   * does not), after the agent's `end_call`, after a voicemail message.
   */
  private async closeCall(line: string | null, reason: HangupReason): Promise<void> {
    if (this.ending.started || !this.setup || !this.conversation || this.closing) return;
    this.closing = true;
    const { callId } = this.setup;
    try {
      if (line) await this.conversation.closeWith(line);
      else await this.conversation.stop();
      if (!this.ending.started) await this.deps.hangUp(callId, reason);
    } catch (error) {
      this.ctx.logger.warn({ err: error, callId, reason }, 'the platform could not end the call');
    }
    await this.end();
  }

  /** The playout, the reply's way out, the conversation and the caller's audio, wired together. */
  private wire(setup: PhoneCallSetup): void {
    const log = this.ctx.logger;
    this.playout = new CarrierPlayout({
      media: (frame, playsAt) => {
        this.echoGate.agentPlayed(decodeMulaw(frame), playsAt);
        this.recording?.agentFrame(frame, playsAt);
        this.sendToCarrier(this.protocol.media(this.streamId!, frame));
      },
      mark: (name) => this.sendToCarrier(this.protocol.mark(this.streamId!, name)),
    });
    const replyOut = new PhoneReplyOut(
      this.playout,
      () => {
        this.recording?.cleared();
        this.echoGate.cleared();
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
        // the agent ended the call (`end_call`): its reply has played (the carrier's marks said so)
        if (this.agentEndsCall)
          void this.closeCall(
            turn?.spokenText.trim() ? null : (setup.closingLine ?? AGENT_CLOSING_LINE),
            'agent_ended',
          );
      },
      callControls: phoneCallControls(setup.transferDestinations, {
        endCall: () => {
          this.agentEndsCall = true;
        },
        toPersona: (request) => transferToPersona(this.ctx, this.conversation!, setup.sessionId, request),
        toLine: (transfer) => this.deps.transfer(setup.callId, transfer),
        warm: setup.warmTransfers,
      }),
    });
    this.conversation = conversation;
    // the caller's keys, an entry at a time, reach the agent as the caller's words
    this.keypad = new KeypadCollector(setup.keypad ?? {}, (keys) =>
      conversation.takeInput(keypadInput(keys), Date.now()),
    );
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
        utterance: (text, endedAt, turnId, durationMs) => {
          if (this.machine?.listening) this.machine.utterance(text, durationMs);
          else conversation.takeInput(text, endedAt, turnId);
        },
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
      if (!status || status.status === 'active' || this.ending.started || !this.setup) return;
      const reason = status.endReason === 'idle_timeout' ? 'idle_timeout' : 'session_ended';
      this.ctx.logger.info({ callId: this.setup.callId, reason }, 'the call’s session ended: hanging up');
      await this.deps.hangUp(this.setup.callId, reason);
      await this.end();
    } catch (error) {
      this.ctx.logger.warn({ err: error, callId: this.setup?.callId }, 'could not renew the call’s hold');
    }
  }

  /** A caller frame (μ-law, base64): the engine hears it at 16 kHz, echo muted; the recording keeps it as it came. */
  private hear(payload: string, timestampMs?: number): void {
    if (!this.inbound || !this.audio || this.ending.started) return;
    const mulaw = Buffer.from(payload, 'base64');
    this.recording?.callerFrame(mulaw, timestampMs);
    const narrow = decodeMulaw(mulaw);
    // the carrier's clock places the frame on the line, however late or bunched it came
    const heardAt = timestampMs === undefined ? Date.now() : this.origin + timestampMs;
    const echo = this.echoGate.callerHeard(narrow, heardAt);
    this.machine?.hear(narrow);
    const pcm = this.inbound.pushPcm(narrow);
    if (!pcm.length) return;
    // the agent's own voice coming back is not the caller's: speech detection hears silence there
    if (echo) pcm.fill(0);
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

  /** The server is shutting down: the stream closes (1001) and the call ends as if the line dropped. */
  shutdown(): Promise<void> {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1001, 'server shutting down');
    return this.end();
  }

  /** Ends once: the turn under way is recorded (as interrupted), the audio let go, the session freed. */
  private end(): Promise<void> {
    return this.ending.once(() => this.finish());
  }

  private async finish(): Promise<void> {
    clearInterval(this.renewTimer);
    clearTimeout(this.closingTimer);
    this.keypad?.cancel();
    this.machine?.close();
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
