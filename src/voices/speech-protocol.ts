/** Messages between the speech pool (main thread) and each speech worker thread. */

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
}

export type WorkerMessage =
  | { type: 'ready'; startupMs: number }
  | {
      type: 'done';
      id: number;
      /** The MP3 file (32 kbps CBR, mono, at the engine's sample rate). */
      mp3: Uint8Array;
      /** PCM samples the engine produced (the audio's exact length is samples / sampleRate). */
      samples: number;
      sampleRate: number;
      synthMs: number;
    }
  | { type: 'failed'; id: number; error: string };

/** MP3 bitrate in kbit/s: a 4-second sentence is about 16 KB (about 21 KB as base64). */
export const MP3_KBPS = 32;
