import { voiceAudioStats } from './audio-stats';
import captureWorkletUrl from './capture-worklet.ts?worker&url';

/** The microphone while it is on; `stop()` releases it (the browser's recording indicator goes off). */
export interface MicCapture {
  stop(): void;
}

/** Contexts that have loaded the capture processor already. */
const loaded = new WeakSet<AudioContext>();

/**
 * Turns the microphone on: getUserMedia (echo cancellation on, so the agent's voice from the speakers
 * is not sent back), through the capture AudioWorklet that downsamples to 16 kHz, to `onFrame` with
 * PCM16 mono frames of 40 ms, what the voice stream takes as caller audio.
 */
export async function startMicCapture(
  context: AudioContext,
  onFrame: (pcm: Int16Array) => void,
): Promise<MicCapture> {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  try {
    if (!loaded.has(context)) {
      await context.audioWorklet.addModule(captureWorkletUrl);
      loaded.add(context);
    }
  } catch (error) {
    for (const track of stream.getTracks()) track.stop();
    throw error;
  }
  const source = context.createMediaStreamSource(stream);
  const capture = new AudioWorkletNode(context, 'pcm16-capture', { numberOfInputs: 1, numberOfOutputs: 1 });
  // the processor only runs while the graph pulls it: through a muted gain to the speakers
  const mute = context.createGain();
  mute.gain.value = 0;
  source.connect(capture).connect(mute).connect(context.destination);
  const stats = voiceAudioStats();
  capture.port.onmessage = (event: MessageEvent<Int16Array>) => {
    stats.callerFramesSent += 1;
    stats.callerSamplesSent += event.data.length;
    onFrame(event.data);
  };
  return {
    stop() {
      capture.port.onmessage = null;
      source.disconnect();
      capture.disconnect();
      mute.disconnect();
      for (const track of stream.getTracks()) track.stop();
    },
  };
}
