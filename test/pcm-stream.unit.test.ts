import { concatSamples } from '../src/common/pcm';
import { pcmSamples, ReadAheadPcm } from '../src/voices/pcm-stream';

async function* chunksOf(...parts: number[][]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Uint8Array.from(part);
}
const oddBytes = (total: number) => new Error(`odd: ${total}`);
async function all(samples: AsyncIterable<Int16Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of samples) out.push(...chunk);
  return out;
}

describe('PCM16 LE bytes as a provider streams them', () => {
  it('gives each chunk’s whole samples at once, a sample split across chunks carried over', async () => {
    // 1, -2, 256, 3 as little-endian bytes, cut at odd places
    const got = await all(pcmSamples(chunksOf([1, 0, 0xfe], [0xff], [0, 1, 3], [], [0]), oddBytes));
    expect(got).toEqual([1, -2, 256, 3]);
  });

  it('refuses an answer that ends on half a sample', async () => {
    await expect(all(pcmSamples(chunksOf([1, 0, 2]), oddBytes))).rejects.toThrow('odd: 3');
  });
});

describe('a stream read ahead', () => {
  it('reads its source at once and hands the chunks out in order, whole at the end', async () => {
    let read = 0;
    async function* source() {
      for (const n of [1, 2, 3]) {
        read++;
        yield Int16Array.of(n, n);
      }
    }
    const stream = new ReadAheadPcm(22_050, source());
    expect(await stream.done).toEqual(Int16Array.of(1, 1, 2, 2, 3, 3));
    expect(read).toBe(3); // without anyone reading
    expect(await all(stream.chunks())).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('throws a failure part-way after the chunks before it', async () => {
    async function* source() {
      yield Int16Array.of(7);
      throw new Error('cut off');
    }
    const stream = new ReadAheadPcm(22_050, source());
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream.chunks()) got.push(...chunk);
      })(),
    ).rejects.toThrow('cut off');
    expect(got).toEqual([7]);
    await expect(stream.done).rejects.toThrow('cut off');
  });

  it('joins samples', () => {
    expect(concatSamples([Int16Array.of(1), Int16Array.of(2, 3)])).toEqual(Int16Array.of(1, 2, 3));
  });
});
