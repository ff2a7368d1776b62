import { decodeMulaw, encodeMulaw } from '../src/telephony/audio';
import { EchoGate, levelDb } from '../src/telephony/media/echo-gate';
import { waveformMatch } from '../src/telephony/media/waveform-match';

const SLOT = 160;

/** A small seeded generator: the same audio on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** A syllabic level envelope (dBFS per 20 ms), as speech has: loud and quiet by turns. */
function speechLevels(slots: number, seed: number): number[] {
  const random = seeded(seed);
  return Array.from(
    { length: slots },
    (_, i) => -20 - 25 * Math.abs(Math.sin(i / (3 + random()))) - 5 * random(),
  );
}

/**
 * A voiced waveform (8 kHz PCM16) following `levels`: ten harmonics of a pitch that wanders around
 * `pitchHz`, with a little breath noise, as a voice has.
 */
function voice(levels: number[], pitchHz: number, seed: number): Int16Array {
  const random = seeded(seed);
  const phases = Array.from({ length: 10 }, () => random() * 2 * Math.PI);
  const out = new Int16Array(levels.length * SLOT);
  let phase = 0;
  for (let n = 0; n < out.length; n++) {
    const f0 = pitchHz * (1 + 0.15 * Math.sin(n / 2400));
    phase += (2 * Math.PI * f0) / 8000;
    let s = 0;
    for (let k = 1; k <= 10; k++) s += Math.sin(k * phase + phases[k - 1]!) / k;
    const amplitude = 32768 * 10 ** (levels[Math.floor(n / SLOT)]! / 20) * 1.2;
    out[n] = Math.round(amplitude * (0.8 * s + 0.2 * (random() * 2 - 1)));
  }
  return out;
}

/** `pcm` delayed by `delaySamples`, `gainDb` down, with white noise at `noiseDbfs`, through G.711 once. */
function lineReturn(pcm: Int16Array, delaySamples: number, gainDb: number, noiseDbfs: number): Int16Array {
  const random = seeded(5);
  const gain = 10 ** (gainDb / 20);
  const noise = 32768 * 10 ** (noiseDbfs / 20) * Math.sqrt(3);
  const out = new Int16Array(pcm.length);
  for (let n = 0; n < out.length; n++) {
    const echo = n >= delaySamples ? pcm[n - delaySamples]! * gain : 0;
    out[n] = Math.max(-32768, Math.min(32767, Math.round(echo + (random() * 2 - 1) * noise)));
  }
  return decodeMulaw(encodeMulaw(out));
}

/** Runs a call through the gate, 20 ms a frame: the agent's audio plays, the caller's is heard. */
function verdicts(agent: Int16Array, caller: Int16Array): boolean[] {
  let now = 1_000_000;
  const gate = new EchoGate(() => now);
  const out: boolean[] = [];
  for (let i = 0; i * SLOT < agent.length; i++) {
    gate.agentPlayed(agent.subarray(i * SLOT, (i + 1) * SLOT), now);
    out.push(gate.callerHeard(caller.subarray(i * SLOT, (i + 1) * SLOT)));
    now += 20;
  }
  return out;
}

describe('telling the agent’s voice coming back from the caller', () => {
  const agent = voice(speechLevels(150, 7), 190, 1);

  it('the agent’s voice 163 ms later, 12 dB down, with line noise and G.711 over it, is an echo', () => {
    const heard = verdicts(agent, lineReturn(agent, 1304, -12, -50));
    // after the first window, every verdict is echo but a stray 20 ms, never two in a row
    const after = heard
      .slice(40)
      .map((echo) => (echo ? 'e' : '-'))
      .join('');
    expect(after).not.toContain('--');
    expect(after.split('-').length - 1).toBeLessThanOrEqual(5);
  });

  it('the echo is told from the start of the reply, not after a path is learnt over seconds', () => {
    const heard = verdicts(agent, lineReturn(agent, 1200, -15, -50));
    // the echo starts at slot 8; the first 400 ms window is full at slot 20
    // a stray 20 ms is no interruption (that takes 250 ms of speech that is not echo): never two in a row
    const after = heard
      .slice(26)
      .map((echo) => (echo ? 'e' : '-'))
      .join('');
    expect(after).not.toContain('--');
    expect(after.split('-').length - 1).toBeLessThanOrEqual(5);
  });

  it('caller frames that arrive late and in bursts are placed by the carrier’s clock, and still told as echo', () => {
    const caller = lineReturn(agent, 1304, -12, -50);
    const start = 1_000_000;
    let now = start;
    const gate = new EchoGate(() => now);
    const heard: boolean[] = [];
    for (let i = 0; i * SLOT < agent.length; i++) {
      gate.agentPlayed(agent.subarray(i * SLOT, (i + 1) * SLOT), start + i * 20);
      // a busy event loop: the caller's frames come ten at a time, up to 200 ms late
      if (i % 10 === 9)
        for (let j = i - 9; j <= i; j++)
          heard.push(gate.callerHeard(caller.subarray(j * SLOT, (j + 1) * SLOT), start + j * 20));
      now += 20;
    }
    const after = heard
      .slice(40)
      .map((echo) => (echo ? 'e' : '-'))
      .join('');
    expect(after).not.toContain('--');
    expect(after.split('-').length - 1).toBeLessThanOrEqual(5);
  });

  it('the caller speaking over the agent, louder and to their own rhythm, is not an echo', () => {
    const caller = voice(
      speechLevels(150, 99).map((db, i) => db + 8 + (i % 7 === 0 ? -15 : 0)),
      120,
      2,
    );
    expect(verdicts(agent, caller).slice(40).filter(Boolean).length).toBeLessThan(10);
  });

  it('a quieter caller whose speech follows the agent’s rhythm is still not an echo: the waveform is theirs', () => {
    // the level envelope alone matches the agent's 160 ms earlier, 10 dB down: the false path the
    // envelope-only gate learnt from callers in bench:phone
    const levels = speechLevels(150, 7);
    const follows = levels.map((_, i) => (i >= 8 ? levels[i - 8]! - 10 : -70));
    const caller = voice(follows, 120, 3);
    expect(verdicts(agent, caller).some(Boolean)).toBe(false);
  });

  it('speech with no agent audio in the last second is never an echo', () => {
    const quiet = new Int16Array(90 * SLOT);
    const agentThenSilence = new Int16Array(120 * SLOT);
    agentThenSilence.set(agent.subarray(0, 30 * SLOT));
    const caller = new Int16Array(120 * SLOT);
    caller.set(quiet);
    caller.set(voice(speechLevels(30, 5), 150, 4), 90 * SLOT);
    const heard = verdicts(agentThenSilence, caller);
    expect(heard.slice(90).some(Boolean)).toBe(false);
  });

  it('audio dropped by a clear never plays, so nothing heard later is its echo', () => {
    let now = 1_000_000;
    const gate = new EchoGate(() => now);
    const ahead = voice(speechLevels(60, 21), 160, 6);
    // the reply is sent 1.2 s ahead of its playback, then cleared before any of it plays
    for (let i = 0; i < 60; i++) gate.agentPlayed(ahead.subarray(i * SLOT, (i + 1) * SLOT), now + i * 20);
    gate.cleared();
    // the caller then says exactly those words (a synthetic caller in the agent's voice)
    const heard: boolean[] = [];
    for (let i = 0; i < 60; i++) {
      heard.push(gate.callerHeard(ahead.subarray(i * SLOT, (i + 1) * SLOT).map((s) => s >> 1)));
      now += 20;
    }
    expect(heard.some(Boolean)).toBe(false);
  });

  it('measures a frame’s level in dBFS', () => {
    expect(levelDb(new Int16Array(160))).toBe(-70);
    expect(levelDb(new Int16Array(160).fill(32767))).toBeCloseTo(0, 1);
    expect(levelDb(new Int16Array(160).fill(3277))).toBeCloseTo(-20, 0);
  });
});

describe('comparing waveforms', () => {
  const reference = voice(speechLevels(20, 11), 170, 9);

  it('finds a delayed, scaled copy, and an inverted one', () => {
    const copy = reference.slice(700, 700 + 1600).map((s) => Math.round(s * 0.2));
    expect(waveformMatch(copy, reference)).toBeGreaterThan(0.99);
    expect(
      waveformMatch(
        copy.map((s) => -s),
        reference,
      ),
    ).toBeGreaterThan(0.99);
  });

  it('does not find another voice or noise', () => {
    const other = voice(speechLevels(10, 12), 120, 10);
    const random = seeded(3);
    const noise = new Int16Array(1600).map(() => Math.round((random() * 2 - 1) * 3000));
    expect(waveformMatch(other, reference)).toBeLessThan(0.4);
    expect(waveformMatch(noise, reference)).toBeLessThan(0.2);
  });

  it('is 0 against silence', () => {
    expect(waveformMatch(reference.slice(0, 1600), new Int16Array(3200))).toBe(0);
  });
});
