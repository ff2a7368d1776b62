import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../common/context';
import { createSpeechToText, type SpeechToText, TranscriptionError } from '../../outbound/transcription';
import { float32ToPcm16 } from '../../outbound/wav';
import { CALLER_SAMPLE_RATE, createSpeechDetector } from '../../voices';
import { MAX_AUDIO_FRAME_BYTES, type ServerMessage, type StreamErrorCode } from './protocol';
import { keepTurnAudio } from './recordings';

/** Caller speech over the agent's reply interrupts it once it holds this much speech (a backchannel is shorter). */
export const BARGE_IN_AFTER_MS = 700;
/** A call's voice activity detector is let go after this long without caller audio (an idle stream holds none). */
export const DETECTOR_IDLE_MS = 30_000;

export interface CallerAudioHooks {
  send(message: ServerMessage): void;
  /** An `error` event (rate-limited by the stream); `refused` marks a frame that was refused. */
  error(code: StreamErrorCode, message: string, refused?: boolean): void;
  isAgentSpeaking(): boolean;
  isBackchannel(text: string): boolean;
  interrupt(): void;
  /**
   * The caller's audio heard last is the agent's own voice coming back (a phone line's echo): it
   * neither interrupts nor becomes a turn. Not asked on a live stream (a browser cancels its echo).
   */
  isEcho?(): boolean;
  /** A recognized utterance: the caller's next turn (`durationMs`: how long it was said). */
  utterance(text: string, endedAt: number, turnId: string, durationMs: number): void;
}

type Detector = Awaited<ReturnType<typeof createSpeechDetector>>;

/**
 * The caller's audio on a live call (docs/voice-stream.md "Caller audio"): binary frames of PCM16 LE
 * mono 16 kHz, checked and rate-limited, fed to voice activity detection (Silero VAD, run here on the
 * CPU). Speech over the agent's reply interrupts it once it lasts BARGE_IN_AFTER_MS, or once it is
 * recognized and is not a backchannel; each utterance (ended by VAD_SILENCE_MS of silence) goes to
 * the speech-to-text provider and becomes a turn.
 */
export class CallerAudio {
  private readonly stt: SpeechToText | undefined;
  /** Made on the first audio frame and let go after DETECTOR_IDLE_MS without audio: an idle call holds no model. */
  private detector?: Promise<Detector>;
  private detectorIdleTimer?: NodeJS.Timeout;
  private feeding: Promise<void> = Promise.resolve();
  /** Speech heard (ms) since the caller started talking over the agent; undefined when not. */
  private overlapMs?: number;
  /** The utterance under way: its speech, and how much of it was the agent's echo (ms). */
  private utterance = { speechMs: 0, echoMs: 0 };
  /** The frame judged last: its length when it was speech (0 when not), and whether it was echo. */
  private lastSpeechFrameMs = 0;
  private lastEcho = false;
  private notConfiguredSaid = false;
  /** Recognized utterances become turns in the order they were said. */
  private delivering: Promise<void> = Promise.resolve();
  /** Ends speech under way when no audio arrives for VAD_SILENCE_MS (a client that stopped sending). */
  private quietTimer?: NodeJS.Timeout;
  /** Frames fed so far: the quiet timer ends the utterance only when none came after the one that set it. */
  private framesFed = 0;
  /** Each recognized turn's caller audio, kept until the turn is recorded. */
  private readonly heard = new Map<string, Int16Array>();
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    /** `bargeInAfterMs`: speech over the agent that interrupts it (BARGE_IN_AFTER_MS when not given). */
    private readonly call: {
      sessionId: string;
      recording: boolean;
      bargeInAfterMs?: number;
      /** The session's speech-to-text (sessionSpeechToText; null: none); the platform's when not given. */
      speechToText?: SpeechToText | null;
    },
    private readonly hooks: CallerAudioHooks,
  ) {
    this.stt =
      call.speechToText === undefined ? createSpeechToText(ctx.config.stt) : (call.speechToText ?? undefined);
  }

  get transcribes(): boolean {
    return this.stt !== undefined;
  }

  /** One binary frame from the caller (within the stream's frame and real-time audio budgets). */
  push(frame: Buffer): void {
    if (this.closed) return;
    if (frame.byteLength > MAX_AUDIO_FRAME_BYTES) {
      this.error('FRAME_TOO_LARGE', `An audio frame is at most ${MAX_AUDIO_FRAME_BYTES} bytes`, true);
      return;
    }
    if (frame.byteLength === 0 || frame.byteLength % 2 !== 0) {
      this.error(
        'INVALID_AUDIO',
        'Audio frames are PCM16 LE mono 16 kHz: an even, non-zero number of bytes',
        true,
      );
      return;
    }
    if (!this.stt) {
      if (!this.notConfiguredSaid) {
        this.notConfiguredSaid = true;
        this.error(
          'STT_NOT_CONFIGURED',
          'No speech-to-text provider is configured (STT_BASE_URL); send input.text',
        );
      }
      return;
    }
    this.feed(frame);
  }

  /** The call's detector, made on first use (Silero's model session is the bulk of a call's memory). */
  private detectorNow(): Promise<Detector> {
    this.detector ??= createSpeechDetector(
      {
        onSpeechStart: () => this.speechStarted(),
        onSpeechEnd: (utterance) => this.speechEnded(utterance),
        onFrame: (isSpeech, frameMs) => this.frameJudged(isSpeech, frameMs),
      },
      { silenceMs: this.ctx.config.vad.silenceMs },
    );
    return this.detector;
  }

  private feed(frame: Buffer): void {
    // a copy, aligned for Int16Array (the frame's own buffer may start at an odd offset)
    const samples = new Int16Array(frame.byteLength / 2);
    Buffer.from(samples.buffer).set(frame);
    const detector = this.detectorNow();
    this.feeding = this.feeding
      .then(async () => (await detector).push(samples))
      .catch((error) => {
        this.ctx.logger.warn({ err: error }, 'voice activity detection failed on a frame');
      });
    // a client that stops sending (push-to-talk released, a muted microphone) ends its utterance too
    this.framesFed += 1;
    const fedSoFar = this.framesFed;
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      // a stalled event loop is not a quiet caller: timers run before the frames that arrived
      // meanwhile are read, and setImmediate after them; a frame read since keeps the utterance going
      setImmediate(() => {
        if (this.closed || this.framesFed !== fedSoFar) return;
        this.feeding = this.feeding.then(async () => (await detector).flush()).catch(() => undefined);
      });
    }, this.ctx.config.vad.silenceMs);
    clearTimeout(this.detectorIdleTimer);
    this.detectorIdleTimer = setTimeout(() => this.releaseDetector(), DETECTOR_IDLE_MS);
    this.detectorIdleTimer.unref();
  }

  /** Lets the detector go once what was fed has been judged (the next audio makes a new one). */
  private releaseDetector(): void {
    const detector = this.detector;
    if (!detector) return;
    this.detector = undefined;
    this.feeding = this.feeding
      .then(async () => {
        const d = await detector;
        await d.flush();
        await d.close();
      })
      .catch(() => undefined);
  }

  /**
   * Speech starts on a frame already judged (the detector says so after the frame): that frame is the
   * utterance's first speech, and counts towards an interruption.
   */
  private speechStarted(): void {
    const first = this.lastSpeechFrameMs;
    this.utterance = { speechMs: first, echoMs: this.lastEcho ? first : 0 };
    if (this.hooks.isAgentSpeaking()) this.overlapMs = this.lastEcho ? 0 : first;
  }

  /**
   * Talking over the agent: once it holds BARGE_IN_AFTER_MS of speech (a phone call's own figure),
   * with none of the agent's echo since, it is an interruption.
   */
  private frameJudged(isSpeech: boolean, frameMs: number): void {
    this.lastSpeechFrameMs = isSpeech ? frameMs : 0;
    if (!isSpeech) return;
    const echo = this.hooks.isEcho?.() ?? false;
    this.lastEcho = echo;
    this.utterance.speechMs += frameMs;
    if (echo) this.utterance.echoMs += frameMs;
    if (this.overlapMs === undefined) return;
    // the agent's own voice coming back: the caller's talking over it starts again after it
    this.overlapMs = echo ? 0 : this.overlapMs + frameMs;
    if (this.overlapMs >= (this.call.bargeInAfterMs ?? BARGE_IN_AFTER_MS) && this.hooks.isAgentSpeaking()) {
      this.overlapMs = undefined;
      this.hooks.interrupt();
    }
  }

  private speechEnded(utterance: Float32Array): void {
    this.overlapMs = undefined;
    // mostly the agent's own voice coming back: not the caller's words
    if (this.utterance.echoMs * 2 > this.utterance.speechMs) {
      this.ctx.logger.debug({ sessionId: this.call.sessionId }, 'an echo of the agent was not taken');
      return;
    }
    const endedAt = Date.now();
    const pcm16 = float32ToPcm16(utterance);
    // transcribed at once, but taken as turns in the order they were said
    const transcript = this.transcribe(pcm16);
    this.delivering = this.delivering
      .then(async () => {
        const text = await transcript;
        if (text) this.deliver(text, pcm16, endedAt);
      })
      .catch((error) => this.ctx.logger.warn({ err: error }, 'a recognized utterance could not be taken'));
  }

  /** The utterance's words, or undefined (said as an `error` event) when they cannot be had. */
  private async transcribe(pcm16: Int16Array): Promise<string | undefined> {
    try {
      return (await this.stt!.transcribe({ pcm16, sampleRate: CALLER_SAMPLE_RATE })).text.trim();
    } catch (error) {
      if (error instanceof TranscriptionError) this.error(error.code, error.message);
      else this.error('STT_FAILED', 'The speech could not be transcribed');
      return undefined;
    }
  }

  private deliver(text: string, pcm16: Int16Array, endedAt: number): void {
    if (this.closed) return;
    // said over the agent: "uh-huh" is only listening; anything else was an interruption
    if (this.hooks.isAgentSpeaking() && this.hooks.isBackchannel(text)) return;
    const turnId = randomUUID();
    if (this.call.recording) this.heard.set(turnId, pcm16);
    this.hooks.send({ type: 'input.transcript', turnId, text });
    this.hooks.utterance(text, endedAt, turnId, (pcm16.length / CALLER_SAMPLE_RATE) * 1000);
  }

  /** Lets go of a turn's caller audio that will not be recorded (the turn failed). */
  forget(turnId: string): void {
    this.heard.delete(turnId);
  }

  /** Keeps a recorded turn's audio (caller and agent), when the session records. */
  async keepRecording(
    turnIndex: number,
    turnId: string,
    reply: { pcm: Int16Array; sampleRate: number } | undefined,
  ): Promise<void> {
    const caller = this.heard.get(turnId);
    this.heard.delete(turnId);
    if (!this.call.recording) return;
    await keepTurnAudio(this.ctx, this.call.sessionId, turnIndex, {
      caller: caller && { pcm: caller, sampleRate: CALLER_SAMPLE_RATE },
      agent: reply,
    }).catch((error) => this.ctx.logger.warn({ err: error }, 'could not keep the turn recording'));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.quietTimer);
    clearTimeout(this.detectorIdleTimer);
    await this.feeding;
    const detector = this.detector;
    this.detector = undefined;
    await detector?.then((d) => d.close()).catch(() => undefined);
  }

  private error(code: StreamErrorCode, message: string, refused = false): void {
    this.hooks.error(code, message, refused);
  }
}
