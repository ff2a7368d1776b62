import type { AppContext } from '../../common/context';
import { CallRecorder } from './call-recorder';
import { writeRecordingChunk } from './call-recordings';

/** How often the recording looks at the clock: the agent's played audio kept, settled chunks written. */
const ADVANCE_EVERY_MS = 1_000;

/**
 * A media stream's tap into its call's recording (docs/telephony.md "Recordings"): the stream hands
 * it the caller's frames with the carrier's timestamp, the agent's with when they play, and each
 * `clear`; it keeps the call's clock (from the stream's start) and writes the chunks as they settle.
 */
export class CallRecordingTap {
  private readonly recorder: CallRecorder;
  private readonly origin: number;
  private readonly timer: NodeJS.Timeout;

  /** `origin`: when the stream started (wall clock, ms), the zero of the carrier's timestamps. */
  constructor(
    ctx: Pick<AppContext, 'orm' | 'logger'>,
    callId: string,
    origin: number,
    private readonly now: () => number = Date.now,
  ) {
    this.origin = origin;
    const knex = ctx.orm.em.getConnection().getKnex();
    this.recorder = new CallRecorder(
      (chunk) => writeRecordingChunk(knex, callId, chunk),
      (error) => ctx.logger.warn({ err: error, callId }, 'a chunk of the call recording was not kept'),
    );
    this.timer = setInterval(() => this.recorder.advance(this.clock()), ADVANCE_EVERY_MS);
    this.timer.unref();
  }

  /** A caller frame (μ-law); `carrierMs` is the carrier's timestamp from the stream's start, when it gives one. */
  callerFrame(frame: Uint8Array, carrierMs?: number): void {
    this.recorder.caller(frame, carrierMs ?? this.clock());
  }

  /** An agent frame (μ-law) sent to the carrier, which plays it at `playsAt` (wall clock, ms). */
  agentFrame(frame: Uint8Array, playsAt: number): void {
    this.recorder.agent(frame, playsAt - this.origin);
  }

  /** The carrier's buffer was cleared now (a barge-in). */
  cleared(): void {
    this.recorder.cleared(this.clock());
  }

  /** The stream ended: the rest of the recording is written; resolves once it is stored. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.recorder.close(this.clock());
  }

  private clock(): number {
    return this.now() - this.origin;
  }
}
