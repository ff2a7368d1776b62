/** Messages between the speech pool (main thread) and each speech worker thread, and the pool's results. */

/** What a synthesis answers: an MP3 file (the default) or the engine's raw 16-bit samples. */
export type SpeechOutput = 'mp3' | 'pcm';

/** One synthesis: the engine voice (`set_voice` name, e.g. `gmw/en-US+f2`) and prosody to speak `text` with. */
export interface SynthesisJob {
  id: number;
  /** eSpeak NG voice name with an optional variant: `<language voice>[+<variant>]`. */
  engineVoice: string;
  /** Words per minute (eSpeak default 175). */
  rate: number;
  /** Base pitch 0-100 (eSpeak default 50). */
  pitch: number;
  text: string;
  /** `mp3` when absent. */
  output?: SpeechOutput;
}

/** One MP3 encoding of 16-bit mono samples (caller audio at 16 kHz, agent audio at 22.05 kHz). */
export interface EncodeJob {
  id: number;
  pcm: Int16Array;
  sampleRate: number;
}

/** What the pool posts to a thread. */
export type WorkerJob = ({ type: 'synthesize' } & SynthesisJob) | ({ type: 'encode' } & EncodeJob);
/** A synthesis as the pool takes it (the pool numbers its jobs). */
export type JobInput = Omit<SynthesisJob, 'id'>;
/** A job as the pool queues it, before it is numbered. */
export type PoolJob = ({ type: 'synthesize' } & JobInput) | ({ type: 'encode' } & Omit<EncodeJob, 'id'>);

export type WorkerMessage =
  | { type: 'ready'; startupMs: number }
  | ({ type: 'done'; id: number } & SynthesisResult)
  | ({ type: 'pcm'; id: number } & PcmSynthesisResult)
  | { type: 'failed'; id: number; error: string };

/** An MP3 synthesis or encoding. */
export interface SynthesisResult {
  /** The MP3 file (32 kbps CBR, mono, at `sampleRate`). */
  mp3: Uint8Array;
  /** PCM samples encoded (the audio's exact length is samples / sampleRate). */
  samples: number;
  sampleRate: number;
  /** Time the thread spent on the job. */
  synthMs: number;
}

/** A synthesis with `output: 'pcm'`: the samples as the engine made them (its buffer was transferred, not copied). */
export interface PcmSynthesisResult {
  /** 16-bit signed mono samples. */
  pcm: Int16Array;
  /** The engine's rate: 22050 Hz for eSpeak NG. */
  sampleRate: number;
  synthMs: number;
}

/** MP3 bitrate in kbit/s: a 4-second sentence is about 16 KB (about 21 KB as base64). */
export const MP3_KBPS = 32;

/** Refused by the pool when it is closed or its queue is full. */
export class PoolBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolBusyError';
  }
}
