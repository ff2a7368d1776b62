import { EchoGate, levelDb } from '../src/telephony/media/echo-gate';

/** A syllabic level envelope (dBFS per 20 ms), as speech has: loud and quiet by turns. */
function speechLevels(slots: number, seed: number): number[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return Array.from(
    { length: slots },
    (_, i) => -20 - 25 * Math.abs(Math.sin(i / (3 + random()))) - 5 * random(),
  );
}

/** A gate on a clock the test moves, 20 ms a frame. */
function gateOnClock() {
  let now = 1_000_000;
  const gate = new EchoGate(() => now);
  return { gate, tick: () => (now += 20), now: () => now };
}

describe('telling the agent’s voice coming back from the caller', () => {
  it('the agent’s levels 160 ms later and 12 dB down are an echo', () => {
    const { gate, tick, now } = gateOnClock();
    const agent = speechLevels(150, 7);
    const verdicts: boolean[] = [];
    for (let i = 0; i < agent.length; i++) {
      gate.agentPlayed(agent[i], now());
      const back = i >= 8 ? agent[i - 8] - 12 : -70;
      verdicts.push(gate.callerHeard(back));
      tick();
    }
    // after the first window, every verdict is echo
    expect(verdicts.slice(40).every(Boolean)).toBe(true);
  });

  it('the caller speaking over the agent, louder and to their own rhythm, is not an echo', () => {
    const { gate, tick, now } = gateOnClock();
    const agent = speechLevels(150, 7);
    const caller = speechLevels(150, 99).map((db, i) => db + 8 + (i % 7 === 0 ? -15 : 0));
    const verdicts: boolean[] = [];
    for (let i = 0; i < agent.length; i++) {
      gate.agentPlayed(agent[i], now());
      verdicts.push(gate.callerHeard(caller[i]));
      tick();
    }
    expect(verdicts.slice(40).filter(Boolean).length).toBeLessThan(10);
  });

  it('speech with no agent audio in the last second is never an echo', () => {
    const { gate, tick, now } = gateOnClock();
    for (const db of speechLevels(30, 3)) {
      gate.agentPlayed(db, now());
      tick();
    }
    for (let i = 0; i < 60; i++) tick(); // 1.2 s of the agent silent
    const verdicts = speechLevels(100, 5).map((db) => {
      tick();
      return gate.callerHeard(db);
    });
    expect(verdicts.some(Boolean)).toBe(false);
  });

  it('measures a frame’s level in dBFS', () => {
    expect(levelDb(new Int16Array(160))).toBe(-70);
    expect(levelDb(new Int16Array(160).fill(32767))).toBeCloseTo(0, 1);
    expect(levelDb(new Int16Array(160).fill(3277))).toBeCloseTo(-20, 0);
  });
});
