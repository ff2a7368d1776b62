import { DTMF_GAP_MS, DTMF_TONE_MS, dtmfFrequencies, dtmfTones } from '../src/telephony/audio/dtmf';
import { findSteadyTone } from '../src/telephony/audio/steady-tone';
import { speakWithEspeak } from './support/espeak-speech';
import { multimonDecodes, soxBeep, soxResample } from './support/phone-audio-tools';

const concat = (...parts: Int16Array[]) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('press_digits: DTMF tones (ITU-T Q.23)', () => {
  it('pairs each key with its low and high group frequencies', () => {
    expect(dtmfFrequencies('1')).toEqual([697, 1209]);
    expect(dtmfFrequencies('0')).toEqual([941, 1336]);
    expect(dtmfFrequencies('#')).toEqual([941, 1477]);
    expect(dtmfFrequencies('D')).toEqual([941, 1633]);
    expect(() => dtmfTones('12x', 8000)).toThrow(/"x" is not a DTMF key/);
  });

  it('is 100 ms of tone and 100 ms of silence a key', () => {
    const tones = dtmfTones('42', 8000);
    expect(tones.length).toBe(2 * ((DTMF_TONE_MS + DTMF_GAP_MS) / 1000) * 8000);
    expect(tones.subarray(800, 1600).every((s) => s === 0)).toBe(true); // the gap after the first key
    expect(Math.max(...tones.subarray(0, 800))).toBeGreaterThan(8000);
  });

  it.each([8000, 22_050])('decodes to the same keys with multimon-ng, made at %i Hz', (rate) => {
    const keys = '1234567890*#ABCD';
    expect(multimonDecodes(dtmfTones(keys, rate), rate)).toBe(keys);
  });

  it('decodes a repeated key as twice, the gap between them', () => {
    expect(multimonDecodes(dtmfTones('1100', 8000), 8000)).toBe('1100');
  });
});

describe('voicemail: the beep after a greeting', () => {
  let greeting: Int16Array;
  let hello: Int16Array;
  beforeAll(async () => {
    const spoken = await speakWithEspeak("You've reached Sam, leave a message after the tone");
    greeting = soxResample(spoken.pcm16, spoken.sampleRate, 8000);
    const person = await speakWithEspeak('Hello?');
    hello = soxResample(person.pcm16, person.sampleRate, 8000);
  }, 60_000);

  it('finds a 1 kHz beep made with sox where the greeting ends, and how long it lasts', () => {
    const silence = new Int16Array(2400); // 300 ms
    const audio = concat(greeting, silence, soxBeep(1000, 0.5, 8000), silence);
    const beep = findSteadyTone(audio, 8000);
    const beepStartMs = ((greeting.length + silence.length) / 8000) * 1000;
    expect(beep).toBeDefined();
    expect(beep!.frequency).toBeGreaterThanOrEqual(975);
    expect(beep!.frequency).toBeLessThanOrEqual(1025);
    expect(Math.abs(beep!.startMs - beepStartMs)).toBeLessThanOrEqual(40);
    expect(Math.abs(beep!.endMs - (beepStartMs + 500))).toBeLessThanOrEqual(40);
  });

  it('finds beeps near 1 kHz that machines use (880, 1100 Hz), at the phone rate', () => {
    for (const hz of [880, 1100]) {
      const beep = findSteadyTone(concat(greeting, soxBeep(hz, 0.4, 8000)), 8000);
      expect(Math.abs(beep!.frequency - hz)).toBeLessThanOrEqual(25);
    }
  });

  it('finds none in speech alone, nor in DTMF keys', () => {
    expect(findSteadyTone(greeting, 8000)).toBeUndefined();
    expect(findSteadyTone(hello, 8000)).toBeUndefined();
    expect(findSteadyTone(dtmfTones('0000#', 8000), 8000)).toBeUndefined();
  });
});
