import { pcm16ToWav, readWav } from '../src/outbound/wav';
import {
  CallRecorder,
  RECORDING_CHUNK_MS,
  type RecordingChunk,
} from '../src/telephony/recordings/call-recorder';

const FRAME = 160; // 20 ms of μ-law at 8 kHz
const SILENCE = 0xff;
/** A 20 ms frame of one μ-law byte value (not silence). */
const frame = (value: number) => new Uint8Array(FRAME).fill(value);

function recorder() {
  const written: RecordingChunk[] = [];
  const errors: unknown[] = [];
  const r = new CallRecorder(
    async (chunk) => {
      written.push(chunk);
    },
    (e) => errors.push(e),
  );
  return { r, written, errors };
}

/** The byte at `ms` on one side, across the written chunks (undefined past the end). */
function at(written: RecordingChunk[], side: 'caller' | 'agent', ms: number): number | undefined {
  const sample = ms * 8;
  const chunk = written.find((c) => c.index === Math.floor(sample / (RECORDING_CHUNK_MS * 8)));
  return chunk?.[side][sample - chunk.index * RECORDING_CHUNK_MS * 8];
}

describe('a call’s two-channel recording (docs/telephony.md "Recordings")', () => {
  it('puts the caller and the agent on one timeline, silence between, and writes chunks as they settle', async () => {
    const { r, written, errors } = recorder();
    r.caller(frame(0x10), 0);
    r.caller(frame(0x11), 20);
    r.agent(frame(0x20), 1_000); // sent ahead: kept once its time has come
    r.advance(900);
    expect(written).toHaveLength(0);
    r.advance(1_100);
    r.caller(frame(0x12), 6_000);
    r.advance(7_999); // chunk 0 [0, 5 s) settles 3 s after its end
    expect(written).toHaveLength(0);
    r.advance(8_000);
    await r.close(8_000);
    expect(errors).toEqual([]);
    expect(written.map((c) => c.index)).toEqual([0, 1]);
    expect(written[0].caller).toHaveLength(RECORDING_CHUNK_MS * 8);
    expect(at(written, 'caller', 0)).toBe(0x10);
    expect(at(written, 'caller', 25)).toBe(0x11);
    expect(at(written, 'caller', 500)).toBe(SILENCE);
    expect(at(written, 'agent', 0)).toBe(SILENCE);
    expect(at(written, 'agent', 1_010)).toBe(0x20);
    expect(at(written, 'caller', 6_010)).toBe(0x12);
    // the last chunk ends where its audio does
    expect(written[1].caller).toHaveLength(1_020 * 8);
    expect(written[1].agent).toHaveLength(1_020 * 8);
  });

  it('keeps none of the agent audio a clear dropped before it played', async () => {
    const { r, written } = recorder();
    for (let ms = 0; ms < 2_000; ms += 20) r.agent(frame(0x30), ms); // 2 s sent ahead
    r.advance(500);
    r.cleared(500); // the caller barged in: the carrier dropped what it held
    await r.close(3_000);
    expect(at(written, 'agent', 480)).toBe(0x30);
    expect(at(written, 'agent', 520)).toBeUndefined(); // the recording ends with what was heard
  });

  it('drops audio for a chunk already written, and writes nothing after close', async () => {
    const { r, written } = recorder();
    r.caller(frame(0x10), 0);
    r.advance(RECORDING_CHUNK_MS + 3_000);
    r.caller(frame(0x40), 100); // too late for chunk 0
    await r.close(RECORDING_CHUNK_MS + 3_000);
    r.caller(frame(0x41), 9_000);
    expect(written).toHaveLength(1);
    expect(at(written, 'caller', 100)).toBe(SILENCE);
  });

  it('splits a frame that straddles two chunks', async () => {
    const { r, written } = recorder();
    r.caller(frame(0x50), RECORDING_CHUNK_MS - 10);
    await r.close(RECORDING_CHUNK_MS + 100);
    expect(at(written, 'caller', RECORDING_CHUNK_MS - 5)).toBe(0x50);
    expect(at(written, 'caller', RECORDING_CHUNK_MS + 5)).toBe(0x50);
    expect(written[1].caller).toHaveLength(80);
  });

  it('a two-channel WAV reads back as two interleaved channels', () => {
    const wav = readWav(pcm16ToWav(Int16Array.from([1, -1, 2, -2]), 8000, 2));
    expect(wav).toMatchObject({ channels: 2, sampleRate: 8000 });
    expect(Array.from(wav.samples)).toEqual([1, -1, 2, -2]);
  });
});
