/**
 * DTMF tones (ITU-T Q.23): each key is a pair of sines, one from the low group (697, 770, 852, 941 Hz)
 * and one from the high group (1209, 1336, 1477, 1633 Hz), what a phone's keypad sends in-band. The
 * agent's `press_digits` plays them into the call's audio to work a phone menu.
 */
const LOW_GROUP = [697, 770, 852, 941] as const;
const HIGH_GROUP = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'] as const;

/** Each key sounds this long, then this much silence before the next (Q.24 asks for ≥ 40 ms of each). */
export const DTMF_TONE_MS = 100;
export const DTMF_GAP_MS = 100;
/** Each of a key's two sines peaks at this fraction of full scale (about -12 dBFS; the pair below 0.5). */
const TONE_AMPLITUDE = 0.25;
/** A short rise and fall at each tone's edges, so it starts and stops without a click. */
const EDGE_MS = 5;

/** The keys a DTMF string may hold: 0-9, *, # and A-D. */
export const DTMF_KEYS = /^[0-9*#A-D]+$/;

/** The two frequencies of a key, low group first. */
export function dtmfFrequencies(key: string): [number, number] {
  for (let row = 0; row < KEYPAD.length; row++) {
    const column = KEYPAD[row]!.indexOf(key);
    if (column >= 0) return [LOW_GROUP[row]!, HIGH_GROUP[column]!];
  }
  throw new RangeError(`"${key}" is not a DTMF key (0-9, *, #, A-D)`);
}

/**
 * The keys as 16-bit PCM at `sampleRate`: each key's tone for DTMF_TONE_MS, then DTMF_GAP_MS of
 * silence. Throws a RangeError naming a character that is no key.
 */
export function dtmfTones(digits: string, sampleRate: number): Int16Array {
  const toneSamples = Math.round((DTMF_TONE_MS / 1000) * sampleRate);
  const gapSamples = Math.round((DTMF_GAP_MS / 1000) * sampleRate);
  const edge = Math.max(1, Math.round((EDGE_MS / 1000) * sampleRate));
  const out = new Int16Array(digits.length * (toneSamples + gapSamples));
  [...digits].forEach((key, k) => {
    const [low, high] = dtmfFrequencies(key);
    const start = k * (toneSamples + gapSamples);
    for (let i = 0; i < toneSamples; i++) {
      const t = i / sampleRate;
      const ramp = Math.min(1, i / edge, (toneSamples - 1 - i) / edge);
      const value =
        TONE_AMPLITUDE * ramp * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t));
      out[start + i] = Math.round(value * 32767);
    }
  });
  return out;
}
