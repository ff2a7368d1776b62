import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import {
  ABUSE_FRAMES,
  ABUSE_WINDOW_MS,
  AUDIO_BURST_BYTES,
  FRAMES_PER_SECOND,
  StreamBudget,
  TokenBucket,
} from '../src/sessions/stream/stream-budget';
import {
  BUFFER_LOW_WATER_BYTES,
  BUFFER_MAX_BYTES,
  READ_STALL_MS,
  StreamSocket,
} from '../src/sessions/stream/stream-socket';

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('a stream’s budgets (docs/voice-stream.md "Limits")', () => {
  it('a token bucket gives its burst, then refills at its rate', () => {
    const t = clock();
    const bucket = new TokenBucket(10, 5, t.now);
    for (let i = 0; i < 10; i++) expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    t.advance(200);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it('frames past the rate are dropped, and a flood closes the stream', () => {
    const t = clock();
    const budget = new StreamBudget(t.now);
    const verdicts = Array.from({ length: FRAMES_PER_SECOND * 2 + ABUSE_FRAMES }, () => budget.frame());
    expect(verdicts.slice(0, FRAMES_PER_SECOND * 2).every((v) => v === 'take')).toBe(true);
    expect(verdicts.filter((v) => v === 'drop')).toHaveLength(ABUSE_FRAMES - 1);
    expect(verdicts.at(-1)).toBe('close');
  });

  it('a client at real time keeps every audio frame; at four times real time most are dropped', () => {
    const t = clock();
    const realTime = new StreamBudget(t.now);
    // 20 ms frames (640 bytes) at real time for a minute
    for (let i = 0; i < 3000; i++) {
      expect(realTime.audio(640)).toBe('take');
      t.advance(20);
    }
    const fast = new StreamBudget(t.now);
    let dropped = 0;
    for (let i = 0; i < 2000; i++) {
      if (fast.audio(640) !== 'take') dropped++;
      t.advance(5);
    }
    // over ten seconds the burst passes, then about three in four are dropped
    const burstFrames = AUDIO_BURST_BYTES / 640;
    expect(dropped).toBeGreaterThan((2000 - burstFrames) * 0.7);
  });

  it('refused frames close the stream only when many come within the window', () => {
    const t = clock();
    const budget = new StreamBudget(t.now);
    for (let i = 0; i < ABUSE_FRAMES - 1; i++) expect(budget.refused()).toBe('drop');
    t.advance(ABUSE_WINDOW_MS + 1);
    expect(budget.refused()).toBe('drop');
  });

  it('error notices are a few a second; the rest are counted', () => {
    const t = clock();
    const budget = new StreamBudget(t.now);
    const sent = Array.from({ length: 100 }, () => budget.notice()).filter(Boolean).length;
    expect(sent).toBe(10);
    expect(budget.suppressedNotices).toBe(90);
  });
});

/** A WebSocket stand-in whose unsent bytes the test sets. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  closedWith?: { code: number; reason: string };
  terminated = false;
  paused = false;
  send(data: string | Uint8Array) {
    this.bufferedAmount += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  }
  close(code: number, reason: string) {
    this.closedWith = { code, reason };
  }
  terminate() {
    this.terminated = true;
    this.readyState = 3;
  }
  pause() {
    this.paused = true;
  }
}

describe('a stream’s backpressure', () => {
  const audio = (bytes: number) => new Uint8Array(bytes);

  it('keeps a client that reads, however much it is sent', () => {
    const fake = new FakeSocket();
    const socket = new StreamSocket(fake as unknown as WebSocket);
    for (let i = 0; i < 2000; i++) {
      socket.sendAudio(audio(8192));
      fake.bufferedAmount = Math.max(0, fake.bufferedAmount - 8192); // read as fast as sent
    }
    expect(socket.dropped).toBeUndefined();
    socket.dispose();
  });

  it('drops a client whose unsent bytes pass the maximum, at once', () => {
    const fake = new FakeSocket();
    const socket = new StreamSocket(fake as unknown as WebSocket);
    while (!socket.dropped && fake.bufferedAmount <= BUFFER_MAX_BYTES + 8192) socket.sendAudio(audio(8192));
    expect(socket.dropped).toBe('client_not_reading');
    expect(fake.closedWith?.code).toBe(1008);
    expect(fake.terminated).toBe(true);
  });

  it('drops a client that has read nothing for a while with more than the low water waiting', async () => {
    jest.useFakeTimers();
    try {
      const fake = new FakeSocket();
      const socket = new StreamSocket(fake as unknown as WebSocket);
      socket.sendAudio(audio(BUFFER_LOW_WATER_BYTES + 1));
      expect(socket.dropped).toBeUndefined();
      jest.advanceTimersByTime(READ_STALL_MS + 1000);
      expect(socket.dropped).toBe('client_not_reading');
    } finally {
      jest.useRealTimers();
    }
  });
});
