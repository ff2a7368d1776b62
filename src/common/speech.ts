/** A piece of synthesized speech (a preview result of docs/api-contract.md "Voice previews"). */
export interface SpeechPreview {
  /** `data:audio/mpeg;base64,…` (or `audio/wav` when a remote provider answers WAV). */
  audioUrl: string;
  /** Seconds of audio, from the sample count (or the provider's MP3 frames / WAV header). */
  duration: number;
  text: string;
}

export interface SpeechStats {
  pool: { threads: number; ready: number; busy: number; queued: number; warming: number };
  cache: { entries: number; bytes: number };
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
  stats(): SpeechStats;
  close(): Promise<void>;
}
