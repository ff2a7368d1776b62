import type { RawData } from 'ws';
import { voiceStreamFrames } from '../../telemetry/metrics';
import { parseClientFrame } from './frames';
import { type ClientMessage, MAX_AUDIO_FRAME_BYTES, type StreamErrorCode } from './protocol';
import { FRAMES_PER_SECOND, type FrameVerdict } from './stream-budget';
import type { StreamSocket } from './stream-socket';

const framesIn = {
  text: voiceStreamFrames.labels('in', 'text', 'taken'),
  audio: voiceStreamFrames.labels('in', 'audio', 'taken'),
  dropped: voiceStreamFrames.labels('in', 'any', 'dropped'),
  refused: voiceStreamFrames.labels('in', 'any', 'refused'),
};

/** Where a call's frames go once they have passed the stream's budgets. */
export interface FrameHandlers {
  audio(bytes: Buffer): void;
  message(message: ClientMessage): void;
}

/**
 * A call's incoming frames (docs/voice-stream.md "Limits"): each passes the stream's frame budget
 * first (`admit`, on arrival), audio its real-time budget, text its schema; what is over a budget is
 * dropped with one RATE_LIMITED notice, what is invalid draws a (rate-limited) `error` event, and a
 * stream with too many of either is dropped as flooding.
 */
export class FrameIntake {
  constructor(
    private readonly socket: StreamSocket,
    private readonly handlers: FrameHandlers,
  ) {}

  /** Every frame first, as it arrives: within the frame budget, or dropped. */
  admit(): boolean {
    this.socket.stats.framesIn++;
    const verdict = this.socket.budget.frame();
    if (verdict === 'take') return true;
    this.overBudget(verdict, `Too many frames: at most ${FRAMES_PER_SECOND} a second; frames dropped`);
    return false;
  }

  /** An admitted frame, once the call takes frames. */
  take(data: RawData, isBinary: boolean): void {
    if (this.socket.dropped) return;
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    if (isBinary) {
      // a malformed frame is refused as such (by the handler), not counted as audio
      const wellFormed =
        bytes.byteLength > 0 && bytes.byteLength <= MAX_AUDIO_FRAME_BYTES && bytes.byteLength % 2 === 0;
      const verdict = wellFormed ? this.socket.budget.audio(bytes.byteLength) : 'take';
      if (verdict !== 'take') {
        this.overBudget(verdict, 'Audio arrives faster than real time; frames dropped');
        return;
      }
      framesIn.audio.inc();
      this.handlers.audio(bytes);
      return;
    }
    const parsed = parseClientFrame(bytes);
    if (!parsed.ok) {
      this.notice(parsed.code, parsed.message, true);
      return;
    }
    framesIn.text.inc();
    this.handlers.message(parsed.message);
  }

  /** An `error` event (a few a second at most); a refused frame counts towards closing the stream. */
  notice(code: StreamErrorCode, message: string, refused = false): void {
    if (refused) {
      framesIn.refused.inc();
      this.socket.stats.refused++;
      if (this.socket.budget.refused() === 'close') {
        this.socket.drop('flooding');
        return;
      }
    }
    this.socket.error(code, message);
  }

  private overBudget(verdict: Exclude<FrameVerdict, 'take'>, message: string): void {
    framesIn.dropped.inc();
    this.socket.stats.dropped++;
    if (verdict === 'close') {
      this.socket.drop('flooding');
      return;
    }
    if (this.socket.budget.dropNotice()) this.socket.error('RATE_LIMITED', message);
  }
}
