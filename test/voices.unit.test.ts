import { createMp3Encoder } from 'wasm-media-encoders';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { AudioFormatError, audioInfo, parseMp3, parseWav, sniffAudio } from '../src/voices/audio';
import { ByteLru } from '../src/voices/byte-lru';
import { SpeechPool } from '../src/voices/speech-pool';
import { catalog, ESPEAK_CATALOG, GENDERS, remoteVoiceId } from '../src/voices/voices.catalog';
import { findVoice, listVoices } from '../src/voices/voices.service';
import { decodeMp3 } from './support/mp3';

/** A mono 16-bit PCM WAV file of `samples` samples (a sine at 440 Hz). */
function sineWav(samples: number, sampleRate = 24_000, declaredDataSize?: number): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(declaredDataSize ?? data.length, 40);
  return Buffer.concat([header, data]);
}

async function sineMp3(samples: number, sampleRate: 22050 | 44100): Promise<Uint8Array> {
  const encoder = await createMp3Encoder();
  // LAME resamples low bitrates down: 32 kbps stays at 22.05 kHz, 128 kbps keeps 44.1 kHz
  encoder.configure({ channels: 1, sampleRate, bitrate: sampleRate === 22050 ? 32 : 128 });
  const pcm = new Float32Array(samples).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  const a = encoder.encode([pcm]).slice();
  const b = encoder.finalize().slice();
  return new Uint8Array([...a, ...b]);
}

const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((s, x) => s + x * x, 0) / samples.length);

describe('voice catalog', () => {
  it('has at least 16 offline voices with stable slug ids, every gender, several languages and categories', () => {
    expect(ESPEAK_CATALOG.length).toBeGreaterThanOrEqual(16);
    const ids = ESPEAK_CATALOG.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const v of ESPEAK_CATALOG) {
      expect(v.id).toMatch(/^espeak-[a-z0-9]+(-[a-z0-9]+)+$/);
      expect(v.provider).toBe('espeak-ng');
      expect(GENDERS).toContain(v.gender);
      expect(v.name && v.description && v.sampleText).toBeTruthy();
      expect(v.tags.length).toBeGreaterThan(0);
      expect(v.language).toMatch(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/);
      expect(v.espeak!.language).not.toMatch(/^mb\//); // MBROLA voices have no data in this build
    }
    for (const g of GENDERS) expect(ESPEAK_CATALOG.some((v) => v.gender === g)).toBe(true);
    const languages = new Set(ESPEAK_CATALOG.map((v) => v.language));
    for (const l of ['en-US', 'en-GB', 'es-ES', 'fr-FR', 'de-DE', 'it-IT', 'pt-BR', 'hi-IN'])
      expect(languages).toContain(l);
    const categories = new Set(ESPEAK_CATALOG.map((v) => v.category));
    expect([...categories].sort()).toEqual(['character', 'conversational', 'narration', 'professional']);
  });

  it('filters exactly, alone and combined; language case-insensitively', () => {
    expect(listVoices()).toHaveLength(ESPEAK_CATALOG.length);
    const female = listVoices({ gender: 'female' });
    expect(female.length).toBeGreaterThan(0);
    expect(female.every((v) => v.gender === 'female')).toBe(true);
    expect(listVoices({ category: 'narration' }).every((v) => v.category === 'narration')).toBe(true);
    expect(listVoices({ category: 'Narration' })).toEqual([]);
    expect(
      listVoices({ language: 'pt-br' })
        .map((v) => v.id)
        .sort(),
    ).toEqual(['espeak-pt-br-beatriz', 'espeak-pt-br-rafael']);
    expect(listVoices({ language: 'en' })).toEqual([]); // exact, not a prefix
    expect(listVoices({ gender: 'male', language: 'fr-FR' }).map((v) => v.id)).toEqual([
      'espeak-fr-fr-louis',
    ]);
    expect(
      listVoices({ gender: 'neutral', category: 'character' })
        .map((v) => v.id)
        .sort(),
    ).toEqual(['espeak-en-us-bolt', 'espeak-en-us-hush']);
    // the API view carries no engine settings
    expect(Object.keys(listVoices()[0]).sort()).toEqual(
      [
        'category',
        'description',
        'gender',
        'id',
        'language',
        'name',
        'provider',
        'sampleText',
        'tags',
      ].sort(),
    );
  });

  it('adds the voices of a configured OpenAI-compatible endpoint, and finds voices by id', () => {
    expect(findVoice('espeak-en-us-aria')).toMatchObject({ name: 'Aria', provider: 'espeak-ng' });
    expect(findVoice('openai-nova')).toBeUndefined();
    expect(findVoice('nope')).toBeUndefined();
    const config = loadConfig({ TTS_BASE_URL: 'https://tts.example.com/v1' });
    expect(config.voices.tts?.voices).toEqual(['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer']);
    expect(catalog(config)).toHaveLength(ESPEAK_CATALOG.length + 6);
    expect(findVoice('openai-nova', config)).toMatchObject({
      gender: 'female',
      provider: 'openai-compatible',
    });
    expect(listVoices({ provider: 'openai-compatible', gender: 'male' }, config).map((v) => v.id)).toEqual([
      'openai-echo',
      'openai-onyx',
    ]);
    const custom = loadConfig({ TTS_BASE_URL: 'https://tts.example.com/v1', TTS_VOICES: 'marin, Cedar_2' });
    expect(listVoices({ provider: 'openai-compatible' }, custom).map((v) => [v.id, v.gender])).toEqual([
      ['openai-marin', 'neutral'],
      ['openai-cedar-2', 'neutral'],
    ]);
    expect(remoteVoiceId('Cedar_2')).toBe('openai-cedar-2');
    expect(() => loadConfig({ TTS_VOICES: 'a,,b' })).toThrow(/TTS_VOICES/);
    expect(() => loadConfig({ VOICE_WORKERS: '0' })).toThrow(/VOICE_WORKERS/);
    expect(loadConfig({ VOICE_WORKERS: '3', VOICE_CACHE_MB: '1' }).voices).toMatchObject({
      workers: 3,
      cacheBytes: 1024 * 1024,
    });
  });
});

describe('ByteLru', () => {
  it('evicts the least recently used entries past its byte budget and skips oversized values', () => {
    const lru = new ByteLru<string, string>(10, (v) => v.length);
    lru.set('a', 'aaaa');
    lru.set('b', 'bbbb');
    expect(lru.get('a')).toBe('aaaa'); // a is now the most recent
    lru.set('c', 'cccc'); // 12 bytes: b goes
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('aaaa');
    expect(lru.get('c')).toBe('cccc');
    expect(lru.bytes).toBe(8);
    lru.set('huge', 'x'.repeat(11));
    expect(lru.get('huge')).toBeUndefined();
    expect(lru.bytes).toBe(8);
    lru.set('a', 'aa'); // replacing counts the new size only
    expect(lru.bytes).toBe(6);
    expect(lru.size).toBe(2);
  });
});

describe('audio formats', () => {
  it('reads a WAV file’s length, also when streamed with an unknown data size', () => {
    const wav = sineWav(36_000, 24_000);
    expect(sniffAudio(wav)).toBe('wav');
    expect(parseWav(wav)).toMatchObject({
      sampleRate: 24_000,
      channels: 1,
      bitsPerSample: 16,
      frames: 36_000,
    });
    expect(audioInfo(wav)).toEqual({ format: 'wav', duration: 1.5 });
    expect(parseWav(sineWav(24_000, 24_000, 0xffffffff)).duration).toBe(1);
  });

  it('walks MP3 frames (MPEG-1 and MPEG-2, with an ID3v2 tag and junk) to the length mpg123 decodes', async () => {
    for (const rate of [22050, 44100] as const) {
      const mp3 = await sineMp3(rate * 2, rate);
      const info = parseMp3(mp3);
      const decoded = await decodeMp3(mp3);
      expect(info.sampleRate).toBe(rate);
      expect(decoded.sampleRate).toBe(rate);
      // frames × samples per frame is what a decoder outputs (encoder delay and padding included)
      expect(info.samples).toBe(decoded.samplesDecoded);
      expect(info.duration).toBeGreaterThanOrEqual(2);
      expect(info.duration).toBeLessThan(2.15);
      const id3 = Buffer.concat([
        Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x05hello', 'latin1'),
        Buffer.from(mp3),
      ]);
      expect(sniffAudio(id3)).toBe('mp3');
      expect(parseMp3(id3).frames).toBe(info.frames);
      expect(parseMp3(Buffer.concat([Buffer.from(mp3), Buffer.from('TAG junk at the end')])).frames).toBe(
        info.frames,
      );
    }
    expect(() => audioInfo(Buffer.from('{"error":"not audio"}'))).toThrow(AudioFormatError);
    expect(() => parseMp3(Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'))).toThrow(
      /no MPEG audio frames/,
    );
  });
});

describe('speech pool (worker threads with eSpeak NG)', () => {
  const logger = createLogger('silent', 'test');
  let pool: SpeechPool;
  beforeAll(() => {
    pool = new SpeechPool({ size: 2, logger });
  });
  afterAll(() => pool.close());

  it('speaks in worker threads: MP3 that decodes to the stated number of samples, not silence', async () => {
    const result = await pool.synthesize({
      engineVoice: 'gmw/en-US+f2',
      rate: 175,
      pitch: 50,
      text: 'Hello from the worker thread.',
    });
    expect(result.sampleRate).toBe(22050);
    const seconds = result.samples / result.sampleRate;
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(5);
    const decoded = await decodeMp3(result.mp3);
    expect(decoded.sampleRate).toBe(22050);
    const decodedSeconds = decoded.samplesDecoded / decoded.sampleRate;
    // the encoder adds its delay and pads the last frame: at most a few 26 ms frames more
    expect(decodedSeconds).toBeGreaterThanOrEqual(seconds);
    expect(decodedSeconds - seconds).toBeLessThan(0.15);
    expect(rms(decoded.channelData[0])).toBeGreaterThan(0.02);
  });

  it('refuses an unknown voice or variant instead of speaking with the previous one', async () => {
    await expect(
      pool.synthesize({ engineVoice: 'xx/nope+f1', rate: 175, pitch: 50, text: 'Hi' }),
    ).rejects.toThrow(/no voice xx\/nope\+f1 \(set_voice answered 2\)/);
    await expect(
      pool.synthesize({ engineVoice: 'gmw/en-US+zz9', rate: 175, pitch: 50, text: 'Hi' }),
    ).rejects.toThrow(/no voice variant zz9/);
    const ok = await pool.synthesize({ engineVoice: 'roa/fr+m5', rate: 175, pitch: 50, text: 'Bonjour' });
    expect(ok.samples).toBeGreaterThan(0);
  });

  it('runs jobs on several threads at once while the event loop stays free', async () => {
    await pool.ready();
    const lags: number[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      lags.push(Math.max(0, now - last - 5));
      last = now;
    }, 5);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pool.synthesize({
          engineVoice: 'gmw/en-US+m3',
          rate: 175,
          pitch: 50,
          text: `Sentence number ${i} of eight, spoken in a worker.`,
        }),
      ),
    );
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(results.every((r) => r.samples > 0)).toBe(true);
    // the main thread kept ticking all along: synthesis on it would stall it for each job, so
    // few ticks would fire, most of them late. (Its single worst stall is not asserted: on two
    // cores shared with the synthesis threads, one GC pause or descheduling can be long.)
    const median = [...lags].sort((a, b) => a - b)[Math.floor(lags.length / 2)] ?? 0;
    expect(lags.length).toBeGreaterThan(elapsed / 25);
    expect(median).toBeLessThan(20);
  });

  it('replaces a thread that dies, failing only its job', async () => {
    const fresh = new SpeechPool({ size: 1, logger, jobTimeoutMs: 2000 });
    try {
      await fresh.ready();
      // a job past its deadline costs its thread; the next job runs on a new one
      const long = 'This sentence is rather long. '.repeat(150);
      await expect(
        fresh.synthesize({ engineVoice: 'gmw/en-US+f1', rate: 80, pitch: 50, text: long }),
      ).rejects.toThrow(/did not finish within 2000 ms/);
      const after = await fresh.synthesize({
        engineVoice: 'gmw/en-US+f1',
        rate: 175,
        pitch: 50,
        text: 'Still here.',
      });
      expect(after.samples).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
    await expect(
      fresh.synthesize({ engineVoice: 'gmw/en-US+f1', rate: 175, pitch: 50, text: 'x' }),
    ).rejects.toThrow(/closed/);
  });
});
