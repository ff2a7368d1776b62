import { ConfirmedPlayback, type ServerMessage } from '../../sessions';
import { OutboundPhoneAudio } from '../audio';
import type { CarrierPlayout } from './playout';

/** A reply segment whose audio is arriving: it ends with its mark. */
interface OpenSegment {
  mark: string;
  sampleRate: number;
}

/** A mark's name for segment `segment` of reply `turnId` (the carrier echoes it once played). */
export const markName = (turnId: string, segment: number) => `${turnId}:${segment}`;

/**
 * The agent's side of a phone call (docs/telephony.md "Audio on a phone line"): the conversation's
 * reply events and PCM in, μ-law frames and marks out to the carrier through the playout. Each
 * reply segment (its `reply.audio` header, its bytes as they come, then `reply.audio.done`) becomes
 * 20 ms frames and, once all of it is out, a mark; the carrier's echo of that mark confirms the segment to the reply's playback, so
 * what the caller heard is what the carrier played. An interruption drops what was not sent and
 * tells the carrier to clear what it holds. Converting is asynchronous (a converter per reply rate
 * is made once), so the work is chained, in order.
 */
export class PhoneReplyOut {
  private readonly converters = new Map<number, Promise<OutboundPhoneAudio>>();
  private readonly playbacks = new Map<string, ConfirmedPlayback>();
  private segment?: OpenSegment;
  private work: Promise<void> = Promise.resolve();
  /** Bumped by each interruption: work queued before it is dropped. */
  private generation = 0;
  /** The reply last interrupted (its interruption is said twice). */
  private interrupted?: string;

  constructor(
    private readonly playout: CarrierPlayout,
    private readonly clearCarrier: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The playback of reply `turnId`, confirmed by the carrier's marks. */
  playback(turnId: string): ConfirmedPlayback {
    const playback = new ConfirmedPlayback();
    this.playbacks.set(turnId, playback);
    return playback;
  }

  /** A conversation event: the phone carries only the reply audio's framing and interruptions. */
  send(message: ServerMessage): void {
    if (message.type === 'reply.audio') {
      const mark = markName(message.turnId, message.segment);
      const sampleRate = message.format.sampleRate;
      this.chain(() => this.open({ mark, sampleRate }));
    } else if (message.type === 'reply.audio.done') {
      this.chain(() => this.closeSegment());
    } else if (message.type === 'interrupted' || (message.type === 'reply.done' && message.interrupted)) {
      // a turn says `interrupted`, then `reply.done`; the greeting only the latter
      if (this.interrupted !== message.turnId) this.interrupt();
      this.interrupted = message.turnId;
    } else if (message.type === 'turn.recorded') {
      // the reply is over: a late echo of its marks finds nothing
      this.playbacks.delete(message.turnId);
    }
  }

  /** Reply PCM16 LE bytes of the open segment. */
  sendAudio(frame: Uint8Array): void {
    const pcm = new Int16Array(frame.slice().buffer);
    this.chain(() => this.convert(pcm));
  }

  /** The carrier echoed a mark: the segment it ends has played. */
  confirmed(name: string): void {
    const at = name.lastIndexOf(':');
    const playback = this.playbacks.get(name.slice(0, at));
    playback?.confirm(Number(name.slice(at + 1)));
  }

  /** Barge-in: nothing more of the reply goes out, and the carrier drops what it holds. */
  interrupt(): void {
    this.generation++;
    this.segment = undefined;
    this.playout.clear();
    this.clearCarrier();
    for (const converter of this.converters.values()) void converter.then((c) => c.clear());
  }

  /** Resolves once everything handed over so far is converted and with the playout. */
  async sent(): Promise<void> {
    let work: Promise<void>;
    do {
      work = this.work;
      await work;
    } while (work !== this.work);
  }

  /** Frees the converters (the call ended). */
  async close(): Promise<void> {
    this.generation++;
    await this.work;
    for (const converter of this.converters.values()) (await converter).dispose();
    this.converters.clear();
    this.playbacks.clear();
  }

  private chain(step: () => Promise<void>): void {
    const generation = this.generation;
    this.work = this.work
      .then(() => (generation === this.generation ? step() : undefined))
      .catch(this.onError);
  }

  private converter(sampleRate: number): Promise<OutboundPhoneAudio> {
    let converter = this.converters.get(sampleRate);
    if (!converter) {
      converter = OutboundPhoneAudio.create(sampleRate);
      this.converters.set(sampleRate, converter);
    }
    return converter;
  }

  private async open(segment: OpenSegment): Promise<void> {
    await this.converter(segment.sampleRate);
    this.segment = segment;
  }

  private async convert(pcm: Int16Array): Promise<void> {
    const segment = this.segment;
    if (!segment) return;
    const converter = await this.converter(segment.sampleRate);
    this.playout.play(converter.push(pcm));
  }

  private async closeSegment(): Promise<void> {
    const segment = this.segment;
    if (!segment) return;
    this.segment = undefined;
    const converter = await this.converter(segment.sampleRate);
    this.playout.play(converter.flush());
    this.playout.mark(segment.mark);
  }
}
