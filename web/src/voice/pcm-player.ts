import { voiceAudioStats } from './audio-stats';

/** How far ahead of the audio clock a reply starts when nothing is playing (avoids a clipped start). */
const START_LEAD_S = 0.05;

/**
 * Plays reply audio as it streams in, without gaps: each chunk of PCM16 becomes an AudioBuffer at the
 * rate the `reply.audio` header states, scheduled to start exactly where the previous one ends on the
 * audio context's clock (or now, if playback has run dry). `stop()` silences everything scheduled at once.
 */
export class PcmPlayer {
  /** Where the last scheduled buffer ends, on the context's clock (seconds). */
  private endTime = 0;
  private readonly scheduled = new Set<AudioBufferSourceNode>();
  private readonly stats = voiceAudioStats();

  constructor(private readonly context: AudioContext) {}

  /** Schedules one chunk of mono PCM16 samples at `sampleRate` after what is already scheduled. */
  play(pcm: Int16Array, sampleRate: number): void {
    if (pcm.length === 0) return;
    const buffer = this.context.createBuffer(1, pcm.length, sampleRate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) channel[i] = pcm[i] / 32_768;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const startAt = Math.max(this.endTime, this.context.currentTime + START_LEAD_S);
    source.start(startAt);
    this.endTime = startAt + buffer.duration;
    this.scheduled.add(source);
    this.stats.replySamplesScheduled += pcm.length;
    this.stats.activeReplyBuffers = this.scheduled.size;
    source.onended = () => {
      if (!this.scheduled.delete(source)) return;
      this.stats.replySamplesPlayed += pcm.length;
      this.stats.activeReplyBuffers = this.scheduled.size;
      source.disconnect();
    };
  }

  /** Whether audio is playing or scheduled to play. */
  get playing(): boolean {
    return this.scheduled.size > 0;
  }

  /** Stops everything scheduled, now. */
  stop(): void {
    if (this.scheduled.size === 0) return;
    for (const source of this.scheduled) {
      source.onended = null;
      source.stop();
      source.disconnect();
    }
    this.scheduled.clear();
    this.endTime = 0;
    this.stats.replyStops += 1;
    this.stats.activeReplyBuffers = 0;
  }
}
