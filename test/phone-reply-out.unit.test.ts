import { decodeMulaw } from '../src/telephony/audio';
import { markName, PhoneReplyOut } from '../src/telephony/media/phone-reply-out';
import { CarrierPlayout } from '../src/telephony/media/playout';

const RATE = 22_050;
/** `ms` of a 440 Hz tone at the voice's rate, as the conversation sends it (PCM16 LE bytes). */
function tone(ms: number): Uint8Array {
  const pcm = new Int16Array(Math.round((RATE * ms) / 1000));
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / RATE));
  return new Uint8Array(pcm.buffer);
}
const header = (turnId: string, segment: number, bytes: number | null) =>
  ({
    type: 'reply.audio',
    turnId,
    segment,
    text: `segment ${segment}`,
    hold: false,
    format: { encoding: 'pcm_s16le', sampleRate: RATE, channels: 1 },
    bytes,
  }) as const;

/** A reply out with a carrier that takes everything at once (a lead of a minute). */
function phone() {
  const got: ({ media: Uint8Array } | { mark: string })[] = [];
  let clears = 0;
  const playout = new CarrierPlayout(
    { media: (frame) => got.push({ media: frame }), mark: (name) => got.push({ mark: name }) },
    60_000,
  );
  const errors: unknown[] = [];
  const out = new PhoneReplyOut(
    playout,
    () => clears++,
    (e) => errors.push(e),
  );
  return { out, got, clears: () => clears, errors };
}
/** Sends `bytes` as the conversation does: the header, frames of at most 8 KiB, then the segment's end. */
function sendSegment(out: PhoneReplyOut, turnId: string, segment: number, bytes: Uint8Array) {
  out.send(header(turnId, segment, bytes.byteLength));
  for (let offset = 0; offset < bytes.byteLength; offset += 8192) {
    out.sendAudio(bytes.subarray(offset, Math.min(offset + 8192, bytes.byteLength)));
  }
  out.send({ type: 'reply.audio.done', turnId, segment, bytes: bytes.byteLength });
}

describe('a reply on its way to a phone carrier', () => {
  it('becomes 20 ms μ-law frames of the same length, then a mark, segment by segment', async () => {
    const { out, got, errors } = phone();
    out.playback('t1');
    sendSegment(out, 't1', 0, tone(500));
    sendSegment(out, 't1', 1, tone(300));
    await out.sent();
    const firstMark = got.findIndex((g) => 'mark' in g);
    expect(got[firstMark]).toEqual({ mark: markName('t1', 0) });
    // 500 ms is 25 frames, plus at most one for the filter's tail
    expect(firstMark).toBeGreaterThanOrEqual(25);
    expect(firstMark).toBeLessThanOrEqual(26);
    expect(got.at(-1)).toEqual({ mark: markName('t1', 1) });
    const frames = got.filter((g): g is { media: Uint8Array } => 'media' in g);
    for (const f of frames) expect(f.media.byteLength).toBe(160);
    // the tone is there, at about its level
    const pcm = decodeMulaw(frames[10].media);
    expect(Math.max(...pcm)).toBeGreaterThan(6000);
    expect(errors).toEqual([]);
    await out.close();
  });

  it('plays a segment that streams as it comes, and marks it only after its end', async () => {
    const { out, got, errors } = phone();
    out.playback('t5');
    const audio = tone(400);
    out.send(header('t5', 0, null));
    out.sendAudio(audio.subarray(0, 4096)); // the provider's first bytes
    await out.sent();
    const early = got.filter((g) => 'media' in g).length;
    expect(early).toBeGreaterThanOrEqual(4); // about 93 ms of audio is out before the rest exists
    expect(got.some((g) => 'mark' in g)).toBe(false);
    out.sendAudio(audio.subarray(4096));
    await out.sent();
    expect(got.some((g) => 'mark' in g)).toBe(false);
    out.send({ type: 'reply.audio.done', turnId: 't5', segment: 0, bytes: audio.byteLength });
    await out.sent();
    expect(got.at(-1)).toEqual({ mark: markName('t5', 0) });
    expect(got.filter((g) => 'media' in g).length).toBeGreaterThanOrEqual(20);
    expect(errors).toEqual([]);
    await out.close();
  });

  it('confirms a segment to the reply’s playback when the carrier echoes its mark', async () => {
    const { out } = phone();
    const playback = out.playback('t2');
    const now = Date.now();
    playback.place(500, now);
    playback.place(300, now);
    expect(playback.heardMs()).toBe(0);
    out.confirmed(markName('t2', 0));
    expect(playback.heardMs()).toBe(500);
    out.confirmed(markName('other-turn', 1)); // another reply's mark moves nothing here
    expect(playback.heardMs()).toBe(500);
    await out.close();
  });

  it('on an interruption sends nothing more of the reply and clears the carrier once', async () => {
    const { out, got, clears } = phone();
    out.playback('t3');
    out.send(header('t3', 0, tone(2000).byteLength));
    out.sendAudio(tone(2000).subarray(0, 8192));
    await out.sent();
    const before = got.length;
    out.send({ type: 'interrupted', turnId: 't3', spokenText: '' });
    out.send({ type: 'reply.done', turnId: 't3', text: '', interrupted: true });
    out.sendAudio(tone(2000).subarray(8192, 16384));
    await out.sent();
    expect(got.length).toBe(before);
    expect(clears()).toBe(1);
    // the next reply goes out whole
    sendSegment(out, 't4', 0, tone(100));
    await out.sent();
    expect(got.at(-1)).toEqual({ mark: markName('t4', 0) });
    await out.close();
  });
});
