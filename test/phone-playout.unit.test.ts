import { CarrierPlayout, PLAYOUT_LEAD_MS } from '../src/telephony/media/playout';

/** A carrier's view of the playout: what arrived, and when (on the fake clock). */
function carrier() {
  const got: { at: number; kind: 'media' | 'mark'; name?: string }[] = [];
  return {
    got,
    sink: {
      media: () => got.push({ at: Date.now(), kind: 'media' }),
      mark: (name: string) => got.push({ at: Date.now(), kind: 'mark', name }),
    },
  };
}
const frames = (n: number) => Array.from({ length: n }, () => new Uint8Array(160).fill(0xff));

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

describe('reply audio on its way to a phone carrier', () => {
  it('sends at once what fits in the lead, then paces a frame per 20 ms, never more than the lead unplayed', () => {
    const { got, sink } = carrier();
    const playout = new CarrierPlayout(sink);
    playout.play(frames(500)); // 10 s of audio
    expect(got.length).toBe(PLAYOUT_LEAD_MS / 20);
    expect(playout.unplayedMs).toBe(PLAYOUT_LEAD_MS);
    for (let t = 0; t < 3000; t += 20) {
      jest.advanceTimersByTime(20);
      expect(playout.unplayedMs).toBeLessThanOrEqual(PLAYOUT_LEAD_MS);
    }
    // 3 s later: the lead's 2 s plus 3 s of real time have been sent
    expect(got.length).toBeGreaterThanOrEqual(249);
    expect(got.length).toBeLessThanOrEqual(251);
    jest.advanceTimersByTime(10_000);
    expect(got.length).toBe(500);
    expect(playout.stats.maxLeadMs).toBeLessThanOrEqual(PLAYOUT_LEAD_MS);
  });

  it('sends a mark right after the audio before it, and keeps their order', () => {
    const { got, sink } = carrier();
    const playout = new CarrierPlayout(sink, 200);
    playout.play(frames(5));
    playout.mark('t1:0');
    playout.play(frames(20));
    playout.mark('t1:1');
    expect(got.map((g) => g.kind).slice(0, 6)).toEqual(['media', 'media', 'media', 'media', 'media', 'mark']);
    jest.advanceTimersByTime(1000);
    expect(got.filter((g) => g.kind === 'media')).toHaveLength(25);
    expect(got.at(-1)).toMatchObject({ kind: 'mark', name: 't1:1' });
  });

  it('after the carrier runs dry, a new reply starts a fresh lead', () => {
    const { got, sink } = carrier();
    const playout = new CarrierPlayout(sink, 400);
    playout.play(frames(10));
    jest.advanceTimersByTime(5000);
    expect(playout.unplayedMs).toBe(0);
    got.length = 0;
    playout.play(frames(40));
    expect(got.length).toBe(20);
  });

  it('clear drops what was not sent and gives the names of the marks dropped', () => {
    const { got, sink } = carrier();
    const playout = new CarrierPlayout(sink, 100);
    playout.play(frames(50));
    playout.mark('t2:0');
    playout.play(frames(50));
    playout.mark('t2:1');
    expect(playout.clear()).toEqual(['t2:0', 't2:1']);
    const sent = got.length;
    jest.advanceTimersByTime(5000);
    expect(got.length).toBe(sent);
    expect(playout.idle).toBe(true);
    // the next reply goes out at once
    playout.play(frames(2));
    expect(got.length).toBe(sent + 2);
  });

  it('sends nothing once closed', () => {
    const { got, sink } = carrier();
    const playout = new CarrierPlayout(sink, 100);
    playout.play(frames(50));
    playout.close();
    const sent = got.length;
    playout.play(frames(5));
    jest.advanceTimersByTime(5000);
    expect(got.length).toBe(sent);
  });
});
