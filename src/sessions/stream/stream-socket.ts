import type { WebSocket } from 'ws';
import { voiceStreamFrames } from '../../telemetry/metrics';
import type { ServerMessage, StreamErrorCode } from './protocol';
import { StreamBudget } from './stream-budget';

/** Below this many bytes waiting to be sent, a stream is keeping up. */
export const BUFFER_LOW_WATER_BYTES = 256 * 1024;
/** A stream with more than this waiting is dropped at once (about 90 s of reply audio). */
export const BUFFER_MAX_BYTES = 4 * 1024 * 1024;
/** A stream with more than the low water waiting that reads nothing for this long is dropped. */
export const READ_STALL_MS = 5000;
/** After a close frame, the connection is cut if the client has not closed it by then. */
const CLOSE_GRACE_MS = 1000;

/** Why the server closed a stream itself (besides a session that ended). */
export type DropReason = 'client_not_reading' | 'flooding';

const DROPS: Record<DropReason, { code: number; reason: string }> = {
  client_not_reading: { code: 1008, reason: 'client not reading' },
  flooding: { code: 1008, reason: 'too many frames' },
};

const framesOut = {
  text: voiceStreamFrames.labels('out', 'text', 'sent'),
  audio: voiceStreamFrames.labels('out', 'audio', 'sent'),
};

/**
 * A live stream's WebSocket as the call sends on it (docs/voice-stream.md "Limits"): what waits to be
 * sent is bounded (a client that stops reading is dropped, its memory given back), `error` events
 * are rate-limited (a flood of bad frames draws a few notices, not one each), and the call's
 * counters (frames and bytes each way) are kept for its close log line.
 */
export class StreamSocket {
  readonly budget = new StreamBudget();
  readonly stats = { framesIn: 0, framesOut: 0, bytesOut: 0, dropped: 0, refused: 0 };
  private queued = 0;
  private flushed = 0;
  private progressAt = Date.now();
  private watchdog?: NodeJS.Timeout;
  /** Why the server dropped the stream, if it did. */
  dropped?: DropReason;

  constructor(
    readonly ws: WebSocket,
    private readonly check?: (message: ServerMessage) => void,
  ) {}

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  send(message: ServerMessage): void {
    if (!this.open) return;
    this.check?.(message);
    const text = JSON.stringify(message);
    this.ws.send(text);
    framesOut.text.inc();
    this.sent(Buffer.byteLength(text));
  }

  sendAudio(frame: Uint8Array): void {
    if (!this.open) return;
    this.ws.send(frame, { binary: true });
    framesOut.audio.inc();
    this.sent(frame.byteLength);
  }

  /** An `error` event, unless the stream has had its share of them this second. */
  error(code: StreamErrorCode, message: string): void {
    if (this.budget.notice()) this.send({ type: 'error', code, message });
  }

  /** Closes with a code and reason; the connection is cut if the client does not answer in time. */
  close(code: number, reason: string): void {
    clearInterval(this.watchdog);
    if (this.ws.readyState === this.ws.CLOSED) return;
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** Drops the stream (it does not read, or floods): no more input is read, then it closes. */
  drop(why: DropReason): void {
    if (this.dropped) return;
    this.dropped = why;
    this.ws.pause();
    const { code, reason } = DROPS[why];
    this.close(code, reason);
    // what waits for a client that does not read is let go now, not after the grace
    if (why === 'client_not_reading') this.ws.terminate();
  }

  private sent(bytes: number): void {
    this.stats.framesOut++;
    this.stats.bytesOut += bytes;
    this.queued += bytes;
    this.checkBackpressure();
  }

  /** Drops a stream whose unsent bytes pass the maximum, or that has not read for READ_STALL_MS. */
  private checkBackpressure(): void {
    const buffered = this.ws.bufferedAmount;
    const flushed = this.queued - buffered;
    const now = Date.now();
    if (buffered <= BUFFER_LOW_WATER_BYTES || flushed > this.flushed) {
      this.flushed = flushed;
      this.progressAt = now;
    }
    if (buffered > BUFFER_MAX_BYTES || now - this.progressAt > READ_STALL_MS) {
      this.drop('client_not_reading');
      return;
    }
    if (buffered > BUFFER_LOW_WATER_BYTES && !this.watchdog) {
      // nothing more may be sent for a while: the stall is noticed all the same
      this.watchdog = setInterval(() => {
        if (!this.open || this.ws.bufferedAmount <= BUFFER_LOW_WATER_BYTES) {
          clearInterval(this.watchdog);
          this.watchdog = undefined;
        }
        if (this.open) this.checkBackpressure();
      }, 500);
      this.watchdog.unref();
    }
  }

  /** Stops the watchdog (the call ended). */
  dispose(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}
