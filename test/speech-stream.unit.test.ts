/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */
// The samples come from worker threads, whose typed arrays are the host's: this environment gives the
// test the same constructors, as a real process has (test/support/native-arrays-environment.js).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';
import { REMOTE_PCM_SAMPLE_RATE } from '../src/voices/remote-tts';
import { SpeechSynthesizer } from '../src/voices/speech';
import { engineVoiceName, findCatalogVoice } from '../src/voices/voices.catalog';
import { decodeMp3 } from './support/mp3';

/** Root mean square of samples, as a fraction of full scale. */
function rms(samples: ArrayLike<number>, fullScale: number): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i] / fullScale) ** 2;
  return Math.sqrt(sum / samples.length);
}

/** Every `factor`-th sample: a rough resampling, enough to make 16 kHz "caller audio" from speech. */
function decimate(pcm: Int16Array, from: number, to: number): Int16Array {
  const out = new Int16Array(Math.floor((pcm.length * to) / from));
  for (let i = 0; i < out.length; i++) out[i] = pcm[Math.floor((i * from) / to)];
  return out;
}

const VOICE = 'espeak-en-us-aria';
const TEXT = 'Your parcel left the warehouse this morning.';
/** The encoder adds its delay and pads the last frame: at most a few frames more than the samples. */
const MP3_SLACK_S = 0.15;

describe('speech for streams (PCM samples, MP3 encoding in a worker thread)', () => {
  const logger = createLogger('silent', 'test');
  let speech: SpeechSynthesizer;
  beforeAll(() => {
    speech = new SpeechSynthesizer(loadConfig({ VOICE_WORKERS: '2' }), logger);
  });
  afterAll(() => speech.close());

  it('speaks a catalog voice as 16-bit samples at 22050 Hz: speech, as long as the MP3 path says', async () => {
    const spoken = await speech.speakPcm(VOICE, TEXT);
    expect(spoken).toBeDefined();
    const { pcm, sampleRate } = spoken!;
    expect(pcm).toBeInstanceOf(Int16Array);
    expect(sampleRate).toBe(22050);
    expect(pcm.length / sampleRate).toBeGreaterThan(1);
    expect(pcm.length / sampleRate).toBeLessThan(6);
    expect(rms(pcm, 32768)).toBeGreaterThan(0.02);
    // the MP3 path speaks the same samples (the same engine, voice and text)
    const voice = findCatalogVoice(VOICE)!.espeak!;
    const mp3 = await speech.pool.synthesize({
      engineVoice: engineVoiceName(voice),
      rate: voice.rate,
      pitch: voice.pitch,
      text: TEXT,
    });
    expect(mp3.samples).toBe(pcm.length);
    expect(mp3.sampleRate).toBe(sampleRate);
  });

  it('encodes samples as an MP3 that decodes to the same audio, about as long', async () => {
    const { pcm, sampleRate } = (await speech.speakPcm(VOICE, TEXT))!;
    const mp3 = await speech.encodeMp3(pcm, sampleRate);
    expect(pcm.length).toBeGreaterThan(0); // the caller's array is copied to the thread, not taken
    const decoded = await decodeMp3(mp3);
    expect(decoded.sampleRate).toBe(22050);
    const seconds = pcm.length / sampleRate;
    const decodedSeconds = decoded.samplesDecoded / decoded.sampleRate;
    expect(decodedSeconds).toBeGreaterThanOrEqual(seconds);
    expect(decodedSeconds - seconds).toBeLessThan(MP3_SLACK_S);
    expect(rms(decoded.channelData[0], 1)).toBeGreaterThan(0.02);
    expect(Math.abs(rms(decoded.channelData[0], 1) - rms(pcm, 32768))).toBeLessThan(0.5 * rms(pcm, 32768));
  });

  it('encodes 16 kHz caller audio at 16 kHz, and only a view’s own samples', async () => {
    const { pcm, sampleRate } = (await speech.speakPcm(VOICE, TEXT))!;
    const caller = decimate(pcm, sampleRate, 16_000);
    const decoded = await decodeMp3(await speech.encodeMp3(caller, 16_000));
    expect(decoded.sampleRate).toBe(16_000);
    const seconds = caller.length / 16_000;
    expect(decoded.samplesDecoded / 16_000 - seconds).toBeGreaterThanOrEqual(0);
    expect(decoded.samplesDecoded / 16_000 - seconds).toBeLessThan(MP3_SLACK_S);
    expect(rms(decoded.channelData[0], 1)).toBeGreaterThan(0.02);
    // the second half, as a view of the whole buffer
    const half = caller.subarray(caller.length / 2);
    const halfDecoded = await decodeMp3(await speech.encodeMp3(half, 16_000));
    expect(halfDecoded.samplesDecoded / 16_000 - half.length / 16_000).toBeLessThan(MP3_SLACK_S);
    expect(caller.length).toBeGreaterThan(0);
  });

  it('refuses a sample rate MP3 does not have', async () => {
    await expect(speech.encodeMp3(new Int16Array(100), 20_000)).rejects.toThrow(
      /MP3 has no sample rate of 20000 Hz/,
    );
  });

  it('answers undefined for an unknown voice, and repeats a phrase from its cache as a new array', async () => {
    expect(await speech.speakPcm('espeak-nope', 'Hello')).toBeUndefined();
    const before = speech.stats().pcmCache.entries;
    const first = (await speech.speakPcm(VOICE, 'One moment, please.'))!;
    const again = (await speech.speakPcm(VOICE, 'One moment, please.'))!;
    expect(speech.stats().pcmCache.entries).toBe(before + 1);
    expect(again.pcm).not.toBe(first.pcm);
    expect(again.pcm).toEqual(first.pcm);
    first.pcm.fill(0); // a caller's changes stay its own
    const third = (await speech.speakPcm(VOICE, 'One moment, please.'))!;
    expect(rms(third.pcm, 32768)).toBeGreaterThan(0.02);
  });
});

/** An OpenAI-compatible `POST /v1/audio/speech` double answering raw PCM (or what an input asks for). */
async function startPcmDouble() {
  const bodies: { response_format?: string; input?: string }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const body = JSON.parse(raw);
      bodies.push(body);
      if (String(body.input).includes('MP3')) {
        res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.alloc(100));
        return;
      }
      if (String(body.input).includes('ODD')) {
        res.writeHead(200, { 'content-type': 'audio/pcm' }).end(Buffer.alloc(101));
        return;
      }
      const samples = Buffer.alloc(2 * 2400); // 0.1 s at 24 kHz, little-endian
      for (let i = 0; i < 2400; i++) samples.writeInt16LE(i % 2 === 0 ? 1000 : -1000, i * 2);
      res.writeHead(200, { 'content-type': 'audio/pcm' }).end(samples);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('remote voices as samples (OpenAI-compatible pcm)', () => {
  const logger = createLogger('silent', 'test');
  let double: Awaited<ReturnType<typeof startPcmDouble>>;
  let speech: SpeechSynthesizer;
  beforeAll(async () => {
    double = await startPcmDouble();
    speech = new SpeechSynthesizer(loadConfig({ TTS_BASE_URL: double.url, TTS_VOICES: 'nova' }), logger);
  });
  afterAll(async () => {
    await speech.close();
    await double.close();
  });

  it('asks for response_format pcm and reads 24 kHz 16-bit little-endian samples', async () => {
    const spoken = (await speech.speakPcm('openai-nova', 'Hello there.'))!;
    expect(double.bodies.at(-1)).toMatchObject({
      response_format: 'pcm',
      voice: 'nova',
      input: 'Hello there.',
    });
    expect(spoken.sampleRate).toBe(REMOTE_PCM_SAMPLE_RATE);
    expect(spoken.sampleRate).toBe(24_000);
    expect(spoken.pcm.length).toBe(2400);
    expect([spoken.pcm[0], spoken.pcm[1], spoken.pcm[2399]]).toEqual([1000, -1000, -1000]);
  });

  it('refuses an answer that is not raw PCM', async () => {
    await expect(speech.speakPcm('openai-nova', 'Say MP3')).rejects.toThrow(
      /answered audio\/mpeg instead of raw PCM/,
    );
    await expect(speech.speakPcm('openai-nova', 'Say ODD')).rejects.toThrow(/odd number of bytes \(101\)/);
  });
});
