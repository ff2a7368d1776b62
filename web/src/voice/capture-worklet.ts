/**
 * The microphone's AudioWorklet processor (loaded by mic-capture.ts; Vite builds this file on its own,
 * as a worker script served from the console's origin). It takes the first input channel at the audio
 * context's rate, downsamples it to 16 kHz (each output sample the mean of the input samples it spans,
 * a box filter against aliasing) and posts PCM16 frames of FRAME_SAMPLES to the page.
 */

// the AudioWorkletGlobalScope's names (TypeScript's DOM library does not declare them)
declare const sampleRate: number;
declare function registerProcessor(name: string, processor: new () => unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

const TARGET_RATE = 16_000;
/** 40 ms of audio at 16 kHz a frame (1 280 bytes). */
const FRAME_SAMPLES = 640;

class Pcm16CaptureProcessor extends AudioWorkletProcessor {
  /** Input samples per output sample (3 at 48 kHz, 2.75625 at 44.1 kHz). */
  private readonly step = sampleRate / TARGET_RATE;
  private position = 0;
  private sum = 0;
  private count = 0;
  private frame = new Int16Array(FRAME_SAMPLES);
  private filled = 0;

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      this.sum += channel[i];
      this.count += 1;
      this.position += 1;
      if (this.position < this.step) continue;
      this.position -= this.step;
      this.emit(this.sum / this.count);
      this.sum = 0;
      this.count = 0;
    }
    return true;
  }

  private emit(sample: number): void {
    const clamped = Math.max(-1, Math.min(1, sample));
    this.frame[this.filled++] = clamped < 0 ? clamped * 32_768 : clamped * 32_767;
    if (this.filled < FRAME_SAMPLES) return;
    this.port.postMessage(this.frame, [this.frame.buffer]);
    this.frame = new Int16Array(FRAME_SAMPLES);
    this.filled = 0;
  }
}

registerProcessor('pcm16-capture', Pcm16CaptureProcessor);
