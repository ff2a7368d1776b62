/** A piece of synthesized speech (a preview result of docs/api-contract.md "Voice previews"). */
export interface SpeechPreview {
  /** `data:audio/mpeg;base64,…` (or `audio/wav` when a remote provider answers WAV). */
  audioUrl: string;
  /** Seconds of audio, from the sample count (or the provider's MP3 frames / WAV header). */
  duration: number;
  text: string;
}

/** Synthesized speech as samples: 16-bit signed mono (sent as PCM16 LE), `sampleRate` per second. */
export interface SpeechPcm {
  pcm: Int16Array;
  /** 22050 for eSpeak NG voices, 24000 for an OpenAI-compatible provider's voices. */
  sampleRate: number;
}

/** Synthesized speech as it is made: 16-bit signed mono samples at `sampleRate`, chunk by chunk. */
export interface SpeechPcmStream {
  sampleRate: number;
  /** How many samples in all, when the speech was whole before it was given (undefined: it streams). */
  length?: number;
  /**
   * The samples in order, each chunk as soon as the synthesizer has it; ends when the speech is
   * whole, throws when synthesis fails part-way (after the chunks that came before). Read once.
   */
  chunks(): AsyncIterable<Int16Array>;
}

export interface SpeechStats {
  pool: { threads: number; ready: number; busy: number; queued: number; warming: number };
  cache: { entries: number; bytes: number };
  /** Samples made by speakPcm, kept for phrases that repeat (greetings, hold phrases). */
  pcmCache: { entries: number; bytes: number };
}

/**
 * Speech synthesis as the application context offers it to every area (voice previews, session
 * replies). The voices area implements it (its synthesizer, worker threads and cache).
 */
export interface Speech {
  /** Starts the synthesis threads (they warm up when idle). */
  start(): void;
  /** Resolves once every thread has started and warmed up. */
  warmed(): Promise<void>;
  /** `text` spoken in catalog voice `voiceId` (from the cache when made before); undefined for an unknown voice. */
  speak(voiceId: string, text: string): Promise<{ preview: SpeechPreview; cached: boolean } | undefined>;
  /**
   * `text` spoken in catalog voice `voiceId` as samples (for a stream); undefined for an unknown voice.
   * The caller owns the array it gets.
   */
  speakPcm(voiceId: string, text: string): Promise<SpeechPcm | undefined>;
  /**
   * `text` as samples as they are made (a reply's segment): a provider voice that streams (ElevenLabs)
   * gives its first samples as soon as they arrive; other voices give the whole speech as one chunk.
   * Answers once the synthesis has started well (a refusal rejects here); undefined for an unknown voice.
   */
  streamPcm(voiceId: string, text: string): Promise<SpeechPcmStream | undefined>;
  /**
   * 16-bit mono samples as an MP3 file (32 kbps, at their own rate), encoded off the event loop;
   * `sampleRate` must be an MP3 rate (16000, 22050, 24000…).
   */
  encodeMp3(pcm: Int16Array, sampleRate: number): Promise<Uint8Array>;
  stats(): SpeechStats;
  close(): Promise<void>;
}
