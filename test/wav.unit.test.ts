import { float32ToPcm16, pcm16ToWav, readWav, resamplePcm16, WavFormatError } from '../src/outbound/wav';

/** A sine of `hz` at `rate` Hz, `seconds` long, at half scale. */
function sine(hz: number, rate: number, seconds: number): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(16_384 * Math.sin((2 * Math.PI * hz * i) / rate)),
  );
}

/** How many times the signal crosses zero upwards: a sine's frequency × its duration. */
function upwardCrossings(pcm: Int16Array): number {
  let n = 0;
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1] < 0 && pcm[i] >= 0) n++;
  return n;
}

describe('WAV encoding', () => {
  it('writes the standard 44-byte header of mono PCM16 little-endian', () => {
    const wav = pcm16ToWav(Int16Array.from([0, 1, -1, 32_767, -32_768]), 16_000);
    expect(wav.length).toBe(44 + 10);
    const text = (from: number) => Buffer.from(wav.subarray(from, from + 4)).toString('latin1');
    const view = Buffer.from(wav);
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.readUInt32LE(4)).toBe(36 + 10); // RIFF size: the file less 8 bytes
    expect(view.readUInt32LE(16)).toBe(16); // fmt chunk size
    expect(view.readUInt16LE(20)).toBe(1); // PCM
    expect(view.readUInt16LE(22)).toBe(1); // mono
    expect(view.readUInt32LE(24)).toBe(16_000);
    expect(view.readUInt32LE(28)).toBe(32_000); // bytes per second
    expect(view.readUInt16LE(32)).toBe(2); // bytes per frame
    expect(view.readUInt16LE(34)).toBe(16);
    expect(view.readUInt32LE(40)).toBe(10);
    expect([0, 1, 2, 3, 4].map((i) => view.readInt16LE(44 + i * 2))).toEqual([0, 1, -1, 32_767, -32_768]);
  });

  it('reads back what it wrote, and skips chunks it does not need', () => {
    const pcm = sine(440, 16_000, 0.1);
    expect(readWav(pcm16ToWav(pcm, 16_000))).toEqual({
      sampleRate: 16_000,
      channels: 1,
      bitsPerSample: 16,
      samples: pcm,
    });
    // a LIST chunk of odd length (padded) between fmt and data, as some encoders write
    const plain = pcm16ToWav(pcm, 16_000);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc\0')]);
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    withList.writeUInt32LE(withList.length - 8, 4);
    expect(readWav(new Uint8Array(withList)).samples).toEqual(pcm);
  });

  it('refuses what is not a PCM16 WAV file', () => {
    const wav = Buffer.from(pcm16ToWav(new Int16Array(8), 8000));
    expect(() => readWav(new TextEncoder().encode('hello, not a wav file'))).toThrow(WavFormatError);
    const eightBit = Buffer.from(wav);
    eightBit.writeUInt16LE(8, 34);
    expect(() => readWav(eightBit)).toThrow(/8-bit/);
    const float = Buffer.from(wav);
    float.writeUInt16LE(3, 20);
    expect(() => readWav(float)).toThrow(/not PCM/);
    expect(() => readWav(wav.subarray(0, 50))).toThrow(/runs past the end/);
    expect(() => readWav(wav.subarray(0, 36))).toThrow(/no data chunk/);
  });
});

describe('sample conversions', () => {
  it('turns float samples into PCM16, clamped', () => {
    expect(Array.from(float32ToPcm16(Float32Array.from([0, 0.5, -0.5, 1, -1, 2, -2, Number.NaN])))).toEqual([
      0, 16_384, -16_384, 32_767, -32_768, 32_767, -32_768, 0,
    ]);
  });

  it('resamples keeping the duration and the pitch', () => {
    const tone = sine(440, 22_050, 1);
    const down = resamplePcm16(tone, 22_050, 16_000);
    expect(down.length).toBe(16_000);
    expect(Math.abs(upwardCrossings(down) - 440)).toBeLessThanOrEqual(1);
    const up = resamplePcm16(down, 16_000, 48_000);
    expect(up.length).toBe(48_000);
    expect(Math.abs(upwardCrossings(up) - 440)).toBeLessThanOrEqual(1);
    expect(resamplePcm16(tone, 22_050, 22_050)).toEqual(tone);
    expect(resamplePcm16(new Int16Array(0), 22_050, 16_000)).toHaveLength(0);
  });
});
