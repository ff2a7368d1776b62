import { MULAW_SILENCE, PHONE_LINE_AUDIO } from '../audio';

/** A recording is kept in chunks of this much time: a call cut off loses at most its last chunk. */
export const RECORDING_CHUNK_MS = 5_000;
const SAMPLES_PER_MS = PHONE_LINE_AUDIO.sampleRate / 1000;
const CHUNK_SAMPLES = RECORDING_CHUNK_MS * SAMPLES_PER_MS;
/**
 * A chunk is written once the call's clock is this far past its end: the agent's audio reaches the
 * carrier up to 2 s ahead of playback, and the caller's frames can arrive a little late.
 */
const SETTLE_MS = 3_000;

/** One chunk of a call's two-channel recording: μ-law 8 kHz, the caller's and the agent's side. */
export interface RecordingChunk {
  index: number;
  caller: Buffer;
  agent: Buffer;
}

type Side = 'caller' | 'agent';

/**
 * A phone call's two-channel recording as it happens (docs/telephony.md "Recordings"): the caller's
 * frames where the carrier's clock puts them, the agent's where they play at the carrier, both on
 * one timeline from the stream's start (ms). Agent audio sent ahead of playback is kept only once
 * its time has come: what a barge-in's `clear` dropped was never heard, and is not recorded. Chunks
 * of RECORDING_CHUNK_MS go to `write` once settled, the last one at `close`; gaps are silence.
 */
export class CallRecorder {
  private readonly open = new Map<number, { caller: Buffer; agent: Buffer; samples: number }>();
  private pendingAgent: { atMs: number; frame: Uint8Array }[] = [];
  /** Chunks below this index are written (or were never opened): late audio for them is dropped. */
  private written = 0;
  private closed = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (chunk: RecordingChunk) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A frame the caller said, at `atMs` on the call's clock. */
  caller(frame: Uint8Array, atMs: number): void {
    if (!this.closed) this.place('caller', frame, atMs);
  }

  /** A frame of the agent's that the carrier plays at `atMs` (kept once that time has come). */
  agent(frame: Uint8Array, atMs: number): void {
    if (!this.closed) this.pendingAgent.push({ atMs, frame });
  }

  /** The carrier's buffer was cleared at `atMs`: agent audio not played by then was never heard. */
  cleared(atMs: number): void {
    this.pendingAgent = this.pendingAgent.filter((p) => p.atMs < atMs);
  }

  /** The call's clock reads `nowMs`: the agent's audio played by now is kept, settled chunks written. */
  advance(nowMs: number): void {
    if (this.closed) return;
    this.keepAgentAudioPlayedBy(nowMs);
    const settled = Math.floor((nowMs - SETTLE_MS) / RECORDING_CHUNK_MS);
    this.writeChunksBelow(settled);
  }

  /** The call ended at `nowMs`: what played is kept, and every chunk written; resolves once stored. */
  async close(nowMs: number): Promise<void> {
    if (this.closed) return this.writing;
    this.keepAgentAudioPlayedBy(nowMs);
    this.closed = true;
    this.writeChunksBelow(Number.POSITIVE_INFINITY);
    return this.writing;
  }

  private keepAgentAudioPlayedBy(nowMs: number): void {
    const played = this.pendingAgent.filter((p) => p.atMs < nowMs);
    if (!played.length) return;
    this.pendingAgent = this.pendingAgent.filter((p) => p.atMs >= nowMs);
    for (const p of played) this.place('agent', p.frame, p.atMs);
  }

  private place(side: Side, frame: Uint8Array, atMs: number): void {
    let sample = Math.max(0, Math.round(atMs * SAMPLES_PER_MS));
    let offset = 0;
    while (offset < frame.length) {
      const index = Math.floor(sample / CHUNK_SAMPLES);
      const start = sample - index * CHUNK_SAMPLES;
      const count = Math.min(frame.length - offset, CHUNK_SAMPLES - start);
      if (index >= this.written) {
        const chunk = this.chunk(index);
        chunk[side].set(frame.subarray(offset, offset + count), start);
        chunk.samples = Math.max(chunk.samples, start + count);
      }
      offset += count;
      sample += count;
    }
  }

  private chunk(index: number) {
    let chunk = this.open.get(index);
    if (!chunk) {
      chunk = {
        caller: Buffer.alloc(CHUNK_SAMPLES, MULAW_SILENCE),
        agent: Buffer.alloc(CHUNK_SAMPLES, MULAW_SILENCE),
        samples: 0,
      };
      this.open.set(index, chunk);
    }
    return chunk;
  }

  /** Writes the open chunks below `limit`, in order; a chunk ends where its audio does when it is the last. */
  private writeChunksBelow(limit: number): void {
    const due = [...this.open.keys()].filter((i) => i < limit).sort((a, b) => a - b);
    for (const index of due) {
      const chunk = this.open.get(index)!;
      this.open.delete(index);
      const last = this.closed && this.open.size === 0;
      const length = last ? chunk.samples : CHUNK_SAMPLES;
      const written = {
        index,
        caller: chunk.caller.subarray(0, length),
        agent: chunk.agent.subarray(0, length),
      };
      this.writing = this.writing.then(() => this.write(written)).catch(this.onError);
    }
    if (due.length) this.written = Math.max(this.written, due[due.length - 1] + 1);
  }
}
