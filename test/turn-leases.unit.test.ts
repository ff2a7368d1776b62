import { TurnLeases } from '../workflows/turn-leases';

/** The session workflow's bookkeeping of the turns under way (docs/sessions.md "Idleness"). */
describe('turn leases', () => {
  it('holds the session while a turn is under way, and renewing pushes its lapse back', () => {
    const leases = new TurnLeases();
    expect(leases.any()).toBe(false);
    expect(leases.nextLapseIn(0)).toBeUndefined();
    leases.hold('t1', 30_000, 1_000);
    expect(leases.any()).toBe(true);
    expect(leases.holds('t1', 1_000)).toBe(true);
    expect(leases.nextLapseIn(1_000)).toBe(30_000);
    leases.hold('t1', 30_000, 11_000); // renewed
    expect(leases.nextLapseIn(11_000)).toBe(30_000);
    expect(leases.dropLapsed(35_000)).toBeUndefined();
    expect(leases.turnIds()).toEqual(['t1']);
  });

  it('a turn that ended is not held again by a renewal that arrives after its record', () => {
    const leases = new TurnLeases();
    leases.hold('t1', 30_000, 0);
    leases.end('t1');
    expect(leases.any()).toBe(false);
    leases.hold('t1', 30_000, 10); // a late renewal
    expect(leases.any()).toBe(false);
    expect(leases.holds('t1', 10)).toBe(false);
  });

  it('drops a lease that lapsed (its API process died), saying when its turn was last heard of', () => {
    const leases = new TurnLeases();
    leases.hold('lost', 30_000, 0);
    leases.hold('lost', 30_000, 10_000);
    expect(leases.holds('lost', 39_999)).toBe(true);
    expect(leases.holds('lost', 40_000)).toBe(false);
    expect(leases.dropLapsed(40_000)).toBe(10_000);
    expect(leases.any()).toBe(false);
    // a lapsed turn is not an ended one: its API may still be alive and renew it
    leases.hold('lost', 30_000, 41_000);
    expect(leases.any()).toBe(true);
  });

  it('bounds a lease, whatever it asks for', () => {
    const leases = new TurnLeases();
    leases.hold('long', Number.MAX_SAFE_INTEGER, 0);
    expect(leases.nextLapseIn(0)).toBe(5 * 60_000);
    leases.hold('negative', -5, 0);
    expect(leases.holds('negative', 0)).toBe(false);
    expect(leases.nextLapseIn(0)).toBe(1);
  });

  it('remembers a bounded number of ended turns', () => {
    const leases = new TurnLeases();
    for (let i = 0; i < 1_000; i++) leases.end(`t${i}`);
    leases.hold('t0', 1_000, 0); // forgotten long ago: held again
    leases.hold('t999', 1_000, 0); // ended just now: ignored
    expect(leases.turnIds()).toEqual(['t0']);
  });
});
