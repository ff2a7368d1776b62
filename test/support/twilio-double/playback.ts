import { TWILIO_FRAME_BYTES, TWILIO_FRAME_MS } from '../../../src/telephony/twilio/media-messages';

/** μ-law silence (the code of a zero sample). */
export const MULAW_SILENCE = 0xff;

/** A mark the platform sent, and when and why it came back. */
export interface MarkRecord {
  name: string;
  /** When the mark arrived (performance.now()). */
  receivedAt: number;
  /** When it was echoed: once the audio sent before it had played, or at a `clear`. */
  echoedAt?: number;
  /** Echoed because a `clear` dropped the audio before it (that audio was not all heard). */
  cleared?: boolean;
}

/** A `clear` as received: when, how much unplayed audio it dropped, which marks it echoed. */
export interface ClearRecord {
  at: number;
  droppedBytes: number;
  marksEchoed: string[];
}

type Queued = { kind: 'audio'; bytes: Uint8Array; offset: number } | { kind: 'mark'; mark: MarkRecord };

/**
 * The carrier's playback of the platform's audio, as Twilio's documentation describes it: `media`
 * payloads of any size are buffered and played in the order received, in real time; a `mark` is
 * echoed once the audio sent before it has played (at once when nothing is buffered); a `clear`
 * drops every unplayed byte and echoes the pending marks. The stream's clock calls `playFrame`
 * every 20 ms: it plays the next 160 bytes (silence when the buffer is short) and returns them, so
 * the double knows what the caller heard and when. A mark is echoed at the first tick after its
 * audio ended: never early, at most one frame late.
 */
export class PlaybackBuffer {
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  /** Marks whose audio finished inside the last frame played: echoed at the next tick. */
  private readonly dueMarks: MarkRecord[] = [];
  private playingUntil = 0;
  readonly marks: MarkRecord[] = [];
  readonly clears: ClearRecord[] = [];
  /**
   * Frames the platform sent too late: ticks that ran out of audio in the middle of a segment (audio
   * played, no mark since) and more of that segment came afterwards. A tick late on the double's own
   * side (a busy event loop, caught up at once) is no underrun: the audio was there.
   */
  underruns = 0;
  /** Ticks short of audio since the segment's last audio, counted once more of it comes. */
  private starvedTicks = 0;
  /** Audio of a segment has played and its mark has not come yet. */
  private midSegment = false;

  constructor(
    private readonly echoMark: (mark: MarkRecord) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Unplayed audio held, in bytes (8 a millisecond). */
  get bufferedBytes(): number {
    return this.queuedBytes;
  }

  enqueueAudio(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.midSegment && this.queuedBytes === 0) this.underruns += this.starvedTicks;
    this.starvedTicks = 0;
    this.queue.push({ kind: 'audio', bytes, offset: 0 });
    this.queuedBytes += bytes.length;
  }

  enqueueMark(name: string): void {
    // the segment's audio had all come: a short tick before its mark was its end, not an underrun
    if (this.queuedBytes === 0) this.midSegment = false;
    this.starvedTicks = 0;
    const mark: MarkRecord = { name, receivedAt: this.now() };
    this.marks.push(mark);
    // nothing buffered and the last frame has finished playing: the audio before it has played
    if (this.queue.length === 0 && this.dueMarks.length === 0 && this.now() >= this.playingUntil)
      this.echo(mark, false);
    else this.queue.push({ kind: 'mark', mark });
  }

  clear(): ClearRecord {
    this.midSegment = false;
    this.starvedTicks = 0;
    const record: ClearRecord = { at: this.now(), droppedBytes: this.queuedBytes, marksEchoed: [] };
    for (const mark of this.dueMarks.splice(0)) this.echo(mark, false);
    for (const item of this.queue.splice(0)) {
      if (item.kind !== 'mark') continue;
      this.echo(item.mark, true);
      record.marksEchoed.push(item.mark.name);
    }
    this.queuedBytes = 0;
    this.clears.push(record);
    return record;
  }

  /** Plays one 20 ms frame: echoes the marks whose audio has ended, then takes the next 160 bytes. */
  playFrame(): { frame: Uint8Array; audioBytes: number } {
    for (const mark of this.dueMarks.splice(0)) this.echo(mark, false);
    const frame = new Uint8Array(TWILIO_FRAME_BYTES).fill(MULAW_SILENCE);
    let filled = 0;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.kind === 'mark') {
        this.queue.shift();
        this.midSegment = false;
        // the audio before it ended inside this frame (or the frame before): echoed at the next tick
        if (filled === 0) this.echo(head.mark, false);
        else this.dueMarks.push(head.mark);
        continue;
      }
      if (filled === TWILIO_FRAME_BYTES) break;
      const take = Math.min(TWILIO_FRAME_BYTES - filled, head.bytes.length - head.offset);
      frame.set(head.bytes.subarray(head.offset, head.offset + take), filled);
      filled += take;
      head.offset += take;
      this.queuedBytes -= take;
      if (head.offset === head.bytes.length) this.queue.shift();
    }
    if (filled > 0) this.playingUntil = this.now() + (filled / TWILIO_FRAME_BYTES) * TWILIO_FRAME_MS;
    if (filled < TWILIO_FRAME_BYTES && this.midSegment) this.starvedTicks += 1;
    else if (filled === TWILIO_FRAME_BYTES) this.midSegment = true;
    return { frame, audioBytes: filled };
  }

  private echo(mark: MarkRecord, cleared: boolean): void {
    mark.echoedAt = this.now();
    if (cleared) mark.cleared = true;
    this.echoMark(mark);
  }
}
