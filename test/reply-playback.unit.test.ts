import {
  CONFIRMATION_GRACE_MS,
  ConfirmedPlayback,
  RealTimePlayback,
} from '../src/sessions/stream/reply-playback';

const never = new AbortController().signal;

describe('a reply’s playback reckoned in real time (a browser’s player)', () => {
  it('places segments back to back, or now when the player ran dry, and stops its clock at the stop', () => {
    const playback = new RealTimePlayback();
    expect(playback.place(1000, 10_000)).toEqual({ startMs: 0, endMs: 1000 });
    expect(playback.place(500, 10_200)).toEqual({ startMs: 1000, endMs: 1500 });
    // the player ran dry at 1500: the next segment starts when it goes out
    expect(playback.place(500, 12_000)).toEqual({ startMs: 2000, endMs: 2500 });
    expect(playback.heardMs(10_700)).toBe(700);
    playback.stop(11_000);
    expect(playback.heardMs(20_000)).toBe(1000);
  });

  it('extends a segment that streams: each chunk after the last, or now when the player ran dry', () => {
    const playback = new RealTimePlayback();
    expect(playback.place(100, 10_000)).toEqual({ startMs: 0, endMs: 100 });
    expect(playback.extend(100, 10_050)).toEqual({ startMs: 0, endMs: 200 });
    // the provider was slower than real time: the player ran dry at 200, the chunk plays at 400
    expect(playback.extend(100, 10_400)).toEqual({ startMs: 0, endMs: 500 });
    expect(playback.place(100, 10_400)).toEqual({ startMs: 500, endMs: 600 });
  });

  it('has played when the last segment’s reckoned end has passed, or at once when aborted', async () => {
    const playback = new RealTimePlayback();
    playback.place(150, Date.now());
    const t0 = Date.now();
    await playback.played(never);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    const aborted = new AbortController();
    const other = new RealTimePlayback();
    other.place(60_000, Date.now());
    setTimeout(() => aborted.abort(), 10);
    await other.played(aborted.signal);
  });
});

describe('a reply’s playback confirmed by the carrier (a phone’s marks)', () => {
  it('has heard the confirmed segments and the one playing, and no confirmation after the stop', () => {
    const playback = new ConfirmedPlayback();
    const now = Date.now();
    playback.place(1000, now);
    playback.place(1000, now);
    playback.place(1000, now);
    // nothing confirmed: the first segment is playing
    expect(playback.heardMs()).toBe(0);
    playback.confirm(0);
    expect(playback.heardMs()).toBe(1000); // the second one starts at 1000 and is playing
    playback.stop(now + 1500);
    // the carrier echoes the marks it dropped on clear: not heard
    playback.confirm(2);
    expect(playback.heardMs()).toBe(1000);
  });

  it('has heard everything once the last segment is confirmed', () => {
    const playback = new ConfirmedPlayback();
    playback.place(400, Date.now());
    playback.place(600, Date.now());
    playback.confirm(1);
    expect(playback.heardMs()).toBe(1000);
    // a confirmation past what was sent counts no further
    playback.confirm(7);
    expect(playback.heardMs()).toBe(1000);
  });

  it('has played when the carrier confirms the last segment, not before', async () => {
    const playback = new ConfirmedPlayback();
    playback.place(20, Date.now());
    playback.place(20, Date.now());
    let played = false;
    const done = playback.played(never).then(() => {
      played = true;
    });
    await new Promise((r) => setTimeout(r, 100)); // well past the reckoned end
    expect(played).toBe(false);
    playback.confirm(0);
    await new Promise((r) => setTimeout(r, 10));
    expect(played).toBe(false);
    playback.confirm(1);
    await done;
    expect(played).toBe(true);
  });

  it('gives up waiting a grace after the reckoned end when no confirmation comes (the call is gone)', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const playback = new ConfirmedPlayback();
      playback.place(1000, Date.now());
      let played = false;
      const done = playback.played(never).then(() => {
        played = true;
      });
      jest.advanceTimersByTime(1000 + CONFIRMATION_GRACE_MS - 100);
      await Promise.resolve();
      expect(played).toBe(false);
      jest.advanceTimersByTime(200);
      await done;
      expect(played).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
