import Goertzel from 'goertzeljs';

/** A voicemail's beep: where it starts and the frequency it holds. */
export interface SteadyTone {
  startMs: number;
  endMs: number;
  frequency: number;
}

export interface SteadyToneOptions {
  /** The frequencies looked at (default 850-1150 Hz by 25 Hz: where answering machines beep). */
  frequencies?: number[];
  /** How long one frequency must hold (default 150 ms: a spoken vowel moves on sooner). */
  minMs?: number;
  /** Share of a window's power at one frequency for it to count as a tone (0-0.5, default 0.3). */
  threshold?: number;
  /** Windows quieter than this RMS (of 32 767) are silence (default 300, about -40 dBFS). */
  silenceRms?: number;
}

/** Windows of 20 ms: fine enough for a beep's start, long enough for 25 Hz apart at 8 kHz. */
const WINDOW_MS = 20;
const BEEP_FREQUENCIES = Array.from({ length: 13 }, (_, i) => 850 + 25 * i);

/**
 * The first steady tone in `samples`: a window after window whose power sits at one frequency of
 * `frequencies` (a Goertzel filter each, goertzeljs) for at least `minMs`, as an answering machine's
 * beep does and speech does not: where it starts and where it stops (or the samples end). Undefined
 * when there is none.
 */
export function findSteadyTone(
  samples: Int16Array,
  sampleRate: number,
  opts: SteadyToneOptions = {},
): SteadyTone | undefined {
  const frequencies = opts.frequencies ?? BEEP_FREQUENCIES;
  const minWindows = Math.ceil((opts.minMs ?? 150) / WINDOW_MS);
  const threshold = opts.threshold ?? 0.3;
  const silence = (opts.silenceRms ?? 300) ** 2;
  const size = Math.round((WINDOW_MS / 1000) * sampleRate);
  const filter = new Goertzel({ frequencies, sampleRate });
  let run: { frequency: number; from: number; windows: number } | undefined;
  const toMs = (n: number) => (n / sampleRate) * 1000;
  const held = (until: number) =>
    run && run.windows >= minWindows
      ? { startMs: toMs(run.from), endMs: toMs(until), frequency: run.frequency }
      : undefined;
  let at = 0;
  for (; at + size <= samples.length; at += size) {
    const tone = toneOf(filter, frequencies, samples.subarray(at, at + size), { threshold, silence });
    // the same frequency, or its neighbour (a beep between two filters wavers from one to the other)
    if (tone !== undefined && run && Math.abs(tone - run.frequency) <= 25) {
      run.windows++;
      continue;
    }
    const ended = held(at);
    if (ended) return ended; // the tone held long enough, and has stopped
    run = tone === undefined ? undefined : { frequency: tone, from: at, windows: 1 };
  }
  return held(at); // still sounding when the samples end
}

/** The frequency holding a window's power, if one does (and the window is not silence). */
function toneOf(
  filter: Goertzel,
  frequencies: number[],
  window: Int16Array,
  opts: { threshold: number; silence: number },
): number | undefined {
  filter.refresh();
  let power = 0;
  for (const sample of window) {
    filter.processSample(sample);
    power += sample * sample;
  }
  if (power / window.length <= opts.silence) return undefined;
  const strongest = frequencies.reduce((a, b) => (filter.energies[b]! > filter.energies[a]! ? b : a));
  return filter.energies[strongest]! >= opts.threshold ? strongest : undefined;
}
