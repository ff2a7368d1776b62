/**
 * What a test call's audio has done so far: reply samples scheduled into the Web Audio graph and
 * played out, and caller audio sent. Kept on `window.__voiceAudioStats` so that the browser tests
 * can see that the page's audio graph received the reply and stopped it on an interruption.
 */
export interface VoiceAudioStats {
  /** Reply samples (at their own rate) handed to the audio graph as buffers, since the page loaded. */
  replySamplesScheduled: number;
  /** Reply samples whose buffers finished playing (the audio context's clock went past them). */
  replySamplesPlayed: number;
  /** Reply buffers scheduled and not yet finished or stopped. */
  activeReplyBuffers: number;
  /** Times the scheduled reply audio was stopped (Interrupt, `interrupted`, the caller speaking). */
  replyStops: number;
  /** Caller audio frames (PCM16 16 kHz) sent to the stream, and their samples. */
  callerFramesSent: number;
  callerSamplesSent: number;
}

declare global {
  interface Window {
    __voiceAudioStats?: VoiceAudioStats;
  }
}

/** The page's one stats object (created on first use). */
export function voiceAudioStats(): VoiceAudioStats {
  window.__voiceAudioStats ??= {
    replySamplesScheduled: 0,
    replySamplesPlayed: 0,
    activeReplyBuffers: 0,
    replyStops: 0,
    callerFramesSent: 0,
    callerSamplesSent: 0,
  };
  return window.__voiceAudioStats;
}
