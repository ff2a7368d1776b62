/**
 * The Twilio double's media stream against the minimal stand-in platform
 * (./support/twilio-double/stand-in-platform.ts), whose `ws` server checks the upgrade's signature
 * with our signature.ts: connected and start, frames paced every 20 ms in real time, the caller's
 * audio, playback in real time with marks echoed after their audio's duration, `clear` dropping the
 * buffer and echoing pending marks, `dtmf`, and the line echo.
 */
import { mulaw } from 'alawmulaw';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';
import { type MarkRecord, PlaybackBuffer } from './support/twilio-double/playback';
import { placeCall, sleep, startStandInPlatform, until } from './support/twilio-double/stand-in-platform';

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A 440 Hz tone, `ms` long, PCM16 at 8 kHz. */
const tone = (ms: number) =>
  new Int16Array(8 * ms).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));

let carrier: TwilioDouble;
let platform: Awaited<ReturnType<typeof startStandInPlatform>>;
beforeEach(async () => {
  carrier = await startTwilioDouble();
  platform = await startStandInPlatform(carrier.authToken);
});
afterEach(async () => {
  await carrier.close();
  await platform.close();
});

describe('the media stream', () => {
  /** An answered outbound call's stream, both sides of it. */
  async function answeredStream(
    script: Parameters<TwilioDouble['script']>[0] = { outcome: 'answer', ringMs: 10 },
  ) {
    carrier.script(script);
    await placeCall(carrier, platform);
    const call = await carrier.waitForCall(0);
    const stream = await call.waitForStream();
    await until(() => platform.sockets[0]?.of('start').length === 1, 'start');
    return { call, stream, side: platform.sockets[0]! };
  }

  it('opens with a signed upgrade, connected then start with the <Parameter>s, then 20 ms frames in real time', async () => {
    const { stream, side } = await answeredStream();
    expect(platform.upgrades).toEqual([true]);
    expect(side.messages.slice(0, 2).map((m) => m.message.event)).toEqual(['connected', 'start']);
    const start = side.of('start')[0]!.message;
    expect(start.start).toMatchObject({
      streamSid: stream.streamSid,
      callSid: carrier.calls[0]!.sid,
      tracks: ['inbound'],
    });
    expect(start.start.customParameters).toEqual({ token: 'tok-9' });
    await until(() => side.of('media').length >= 52, 'a second of frames');
    // sent on the line's clock: frame k at start + 20k ms, never early; a busy event loop makes
    // it late, and it catches up (real time on average), so the typical gap is 20 ms
    const sent = stream.sentFrameTimes.slice(0, 52);
    expect(sent.every((at, k) => at - sent[0]! >= 20 * k - 0.5)).toBe(true);
    expect(median(gaps(sent))).toBeGreaterThan(17);
    expect(median(gaps(sent))).toBeLessThan(23);
    const frames = side.of('media').slice(0, 52);
    expect(median(gaps(frames.map((f) => f.at)))).toBeGreaterThan(15);
    expect(median(gaps(frames.map((f) => f.at)))).toBeLessThan(25);
    expect(frames.map((f) => f.message.media.chunk)).toEqual(frames.map((_, i) => String(i + 1)));
    expect(frames.map((f) => f.message.media.timestamp)).toEqual(frames.map((_, i) => String(i * 20)));
    expect(frames.every((f) => Buffer.from(f.message.media.payload, 'base64').length === 160)).toBe(true);
    const sequence = side.messages
      .slice(1)
      .map((m) => Number((m.message as { sequenceNumber: string }).sequenceNumber));
    expect(sequence).toEqual(sequence.map((_, i) => i + 1));
    expect(side.invalid).toEqual([]);
  });

  it('sends what the caller says, in real time, silence around it', async () => {
    const { stream, side } = await answeredStream();
    const before = performance.now();
    await stream.say(tone(300));
    // 15 frames on the line's clock (its catching up after a stall may shorten the wait a little)
    expect(performance.now() - before).toBeGreaterThan(200);
    await stream.pause(100);
    const decoded = side
      .of('media')
      .map((f) => mulaw.decode(new Uint8Array(Buffer.from(f.message.media.payload, 'base64'))));
    const loud = decoded.flatMap((pcm, i) => (pcm.some((s) => Math.abs(s) > 1000) ? [i] : []));
    expect(loud).toHaveLength(15);
    // consecutive frames, timestamps 20 ms apart: 300 ms of the line's time
    expect(loud.at(-1)! - loud[0]!).toBe(14);
    expect(decoded.at(-1)!.every((s) => s === 0)).toBe(true);
  });

  it('plays the platform audio in real time and echoes a mark once the audio before it has played', async () => {
    const { stream, side } = await answeredStream();
    side.play(400);
    side.send({ event: 'mark', streamSid: side.streamSid, mark: { name: 'first' } });
    const sentAt = performance.now();
    await until(() => side.of('mark').length === 1, 'the mark');
    const echoedAfter = side.of('mark')[0]!.at - sentAt;
    expect(echoedAfter).toBeGreaterThanOrEqual(395);
    expect(echoedAfter).toBeLessThan(500);
    expect(side.of('mark')[0]!.message.mark.name).toBe('first');
    expect(stream.heardAudio().length).toBe(400 * 8);
    const heard = stream.heard.map((h) => h.at);
    expect(heard.at(-1)! - heard[0]!).toBeGreaterThan(360);
    // with nothing buffered, a mark comes straight back
    await sleep(30);
    side.send({ event: 'mark', streamSid: side.streamSid, mark: { name: 'idle' } });
    await until(() => side.of('mark').length === 2, 'the idle mark', 100);
  });

  it('drops its buffer on clear and echoes the pending marks then', async () => {
    const { stream, side } = await answeredStream();
    side.play(1000);
    side.send({ event: 'mark', streamSid: side.streamSid, mark: { name: 'long' } });
    await sleep(200);
    side.send({ event: 'clear', streamSid: side.streamSid });
    const clearedAt = performance.now();
    await until(() => side.of('mark').length === 1, 'the mark on clear');
    expect(side.of('mark')[0]!.at - clearedAt).toBeLessThan(80);
    expect(stream.received.marks[0]).toMatchObject({ name: 'long', cleared: true });
    const [clear] = stream.received.clears;
    expect(clear!.marksEchoed).toEqual(['long']);
    expect(clear!.droppedBytes / 8).toBeGreaterThan(700);
    expect(clear!.droppedBytes / 8).toBeLessThan(820);
    await sleep(100);
    // what played before the clear, and nothing after it
    expect(stream.heardAudio().length + clear!.droppedBytes).toBe(8000);
    expect(stream.bufferedMs).toBe(0);
  });

  it('plays back what the platform sends, frame for frame: the caller hears its own words echoed', async () => {
    const { stream, side } = await answeredStream();
    side.echoMedia = true;
    await stream.say(tone(300));
    await stream.pause(200);
    const loudFrames = stream.heard.filter((h) => mulaw.decode(h.bytes).some((s) => Math.abs(s) > 4000));
    expect(loudFrames).toHaveLength(15);
    expect(stream.received.media.length).toBeGreaterThanOrEqual(stream.heard.length);
  });

  it('records the media it receives, sends dtmf, and mixes the line echo of what the caller heard', async () => {
    const { stream, side } = await answeredStream({
      outcome: 'answer',
      ringMs: 10,
      line: { echo: { delayMs: 150, gainDb: -20 } },
    });
    side.play(200, 8000);
    await until(() => stream.heard.length >= 10, 'the audio played');
    await sleep(200);
    expect(stream.receivedAudio().length).toBe(1600);
    const echoFrames = side
      .of('media')
      .map((f) => mulaw.decode(new Uint8Array(Buffer.from(f.message.media.payload, 'base64'))))
      .filter((pcm) => pcm.some((s) => s !== 0));
    // 200 ms back 20 dB down (8000 → 800), as 10 or 11 frames (the delay is not a whole frame count)
    expect(echoFrames.length).toBeGreaterThanOrEqual(10);
    const firstEcho = side
      .of('media')
      .find((f) => Buffer.from(f.message.media.payload, 'base64').some((b) => b !== 0xff))!;
    expect(firstEcho.at - stream.heard[0]!.at).toBeGreaterThan(120);
    expect(firstEcho.at - stream.heard[0]!.at).toBeLessThan(200);
    expect(Math.max(...echoFrames.flatMap((pcm) => [...pcm]))).toBeGreaterThan(700);
    expect(Math.max(...echoFrames.flatMap((pcm) => [...pcm]))).toBeLessThan(900);
    stream.pressKey('7');
    await until(() => side.of('dtmf').length === 1, 'dtmf');
    expect(side.of('dtmf')[0]!.message.dtmf).toEqual({ track: 'inbound_track', digit: '7' });
  });

  it('adds line noise at the level asked for', async () => {
    const { side } = await answeredStream({ outcome: 'answer', ringMs: 10, line: { noiseDbfs: -40 } });
    await until(() => side.of('media').length >= 25, 'half a second of frames');
    const pcm = side
      .of('media')
      .flatMap((f) => [...mulaw.decode(new Uint8Array(Buffer.from(f.message.media.payload, 'base64')))]);
    const rms = Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);
    // -40 dBFS is 1% of full scale: 328
    expect(rms).toBeGreaterThan(290);
    expect(rms).toBeLessThan(370);
  });
});

describe('the playback buffer, on a clock of its own', () => {
  function buffer() {
    const clock = { now: 0 };
    const echoed: MarkRecord[] = [];
    const playback = new PlaybackBuffer(
      (mark) => echoed.push({ ...mark }),
      () => clock.now,
    );
    const tick = () => {
      const played = playback.playFrame();
      clock.now += 20;
      return played.audioBytes;
    };
    return { clock, echoed, playback, tick };
  }

  it('echoes a mark at the first tick after its audio ended, never before', () => {
    const { echoed, playback, tick } = buffer();
    playback.enqueueAudio(new Uint8Array(300)); // 37.5 ms
    playback.enqueueMark('a');
    playback.enqueueAudio(new Uint8Array(20));
    expect([tick(), tick()]).toEqual([160, 160]);
    expect(echoed).toEqual([]);
    expect(tick()).toBe(0);
    expect(echoed).toEqual([{ name: 'a', receivedAt: 0, echoedAt: 40 }]);
  });

  it('counts reply frames that came after their playback time (an underrun mid-segment), not a segment’s end', () => {
    const { playback, tick } = buffer();
    playback.enqueueAudio(new Uint8Array(320)); // two frames, then the platform is late
    expect([tick(), tick(), tick(), tick()]).toEqual([160, 160, 0, 0]);
    playback.enqueueAudio(new Uint8Array(160)); // the rest of the segment, two ticks late
    expect(playback.underruns).toBe(2);
    tick();
    playback.enqueueMark('end');
    // the segment's end, its mark, then silence, then the next segment: no underrun
    expect([tick(), tick()]).toEqual([0, 0]);
    playback.enqueueAudio(new Uint8Array(160));
    expect(tick()).toBe(160);
    expect(playback.underruns).toBe(2);
  });

  it('echoes a mark at once when nothing is buffered or playing', () => {
    const { clock, echoed, playback, tick } = buffer();
    playback.enqueueAudio(new Uint8Array(80)); // 10 ms, playing from 0
    tick();
    clock.now = 5;
    playback.enqueueMark('while playing');
    expect(echoed).toHaveLength(0);
    clock.now = 20;
    tick();
    expect(echoed.map((m) => [m.name, m.echoedAt])).toEqual([['while playing', 20]]);
    // the frame at 20 played nothing: a mark now has no audio before it
    playback.enqueueMark('idle');
    expect(echoed.map((m) => [m.name, m.echoedAt])).toEqual([
      ['while playing', 20],
      ['idle', 40],
    ]);
  });

  it('drops the unplayed audio on clear and echoes the pending marks, marked cleared', () => {
    const { clock, echoed, playback, tick } = buffer();
    playback.enqueueAudio(new Uint8Array(800));
    playback.enqueueMark('b');
    playback.enqueueAudio(new Uint8Array(160));
    playback.enqueueMark('c');
    tick();
    clock.now = 30;
    expect(playback.clear()).toEqual({ at: 30, droppedBytes: 640 + 160, marksEchoed: ['b', 'c'] });
    expect(echoed.map((m) => [m.name, m.cleared])).toEqual([
      ['b', true],
      ['c', true],
    ]);
    expect([playback.bufferedBytes, tick()]).toEqual([0, 0]);
  });
});
