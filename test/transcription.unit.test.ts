import { loadConfig } from '../src/config/env';
import {
  createSpeechToText,
  type SpeechToText,
  type SpeechToTextConfig,
  TRANSCRIPTION_MAX_ANSWER_BYTES,
  TranscriptionError,
} from '../src/outbound/transcription';
import { resamplePcm16 } from '../src/outbound/wav';
import { speakWithEspeak } from './support/espeak-speech';
import { rmsOf, startSttDouble } from './support/stt-double';

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('speech-to-text through an OpenAI-compatible transcription endpoint', () => {
  let double: Awaited<ReturnType<typeof startSttDouble>>;
  let speech: { pcm16: Int16Array; sampleRate: number };
  const config = (change: Partial<SpeechToTextConfig> = {}): SpeechToTextConfig => ({
    baseUrl: double.baseUrl,
    apiKey: 'sk-test-secret',
    model: 'whisper-1',
    timeoutMs: 5000,
    ...change,
  });
  const stt = (change: Partial<SpeechToTextConfig> = {}): SpeechToText => createSpeechToText(config(change))!;

  beforeAll(async () => {
    double = await startSttDouble();
    // what the VAD hands over: eSpeak's 22 050 Hz speech at 16 kHz
    const spoken = await speakWithEspeak('Hello, where is my order? I placed it last week.');
    speech = { pcm16: resamplePcm16(spoken.pcm16, spoken.sampleRate, 16_000), sampleRate: 16_000 };
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.requests.length = 0;
    double.configure({ delayMs: 100, transcript: 'hello', status: undefined, body: undefined, hang: false });
  });

  it('uploads the utterance as a 16 kHz mono WAV with the model and the key, and answers the transcript', async () => {
    expect(speech.pcm16.length / 16_000).toBeGreaterThan(1.5);
    double.configure({
      transcript: (audio) => `${audio.samples.length} samples at ${audio.sampleRate} Hz`,
    });
    const started = performance.now();
    const transcript = await stt().transcribe(speech);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90); // the double's delay
    expect(transcript).toEqual({ text: `${speech.pcm16.length} samples at 16000 Hz` });
    expect(double.requests).toHaveLength(1);
    const [received] = double.requests;
    expect(received).toMatchObject({
      model: 'whisper-1',
      responseFormat: 'json',
      authorization: 'Bearer sk-test-secret',
      fileName: 'utterance.wav',
      fileType: 'audio/wav',
    });
    expect(received.audio).toMatchObject({ sampleRate: 16_000, channels: 1 });
    expect(received.audio.samples.length).toBe(speech.pcm16.length);
    expect(received.audio.seconds).toBeCloseTo(speech.pcm16.length / 16_000, 5);
    // the speech itself arrived, sample for sample, and it is not silence
    expect(Array.from(received.audio.samples)).toEqual(Array.from(speech.pcm16));
    expect(received.audio.rms).toBeGreaterThan(0.02);
    expect(received.audio.rms).toBeCloseTo(rmsOf(speech.pcm16), 6);
  });

  it("uploads whole after Node's own fetch ran in the process (it takes over the global dispatcher)", async () => {
    await fetch(`${double.baseUrl}/models`).catch(() => undefined);
    const started = Date.now();
    expect((await stt({ timeoutMs: 3000 }).transcribe(speech)).text).toBe('hello');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(double.requests.at(-1)?.audio.samples.length).toBe(speech.pcm16.length);
  });

  it('trims the transcript, sends no Authorization without a key, and takes a base URL with a trailing slash', async () => {
    double.configure({ transcript: '  Hello, where is my order?\n' });
    const transcript = await stt({ apiKey: undefined, baseUrl: `${double.baseUrl}/` }).transcribe(speech);
    expect(transcript.text).toBe('Hello, where is my order?');
    expect(double.requests[0].authorization).toBeUndefined();
  });

  it('gives STT_TIMEOUT soon after the timeout when the provider never answers, and closes the request', async () => {
    double.configure({ hang: true });
    const abandonedBefore = double.abandoned;
    const started = performance.now();
    const error = await rejectionOf(stt({ timeoutMs: 300 }).transcribe(speech));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TranscriptionError);
    expect(error).toMatchObject({ code: 'STT_TIMEOUT', message: expect.stringContaining('within 300 ms') });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1000);
    await waitFor(() => double.abandoned > abandonedBefore);
  });

  it('gives STT_TIMEOUT when the answer comes too late', async () => {
    double.configure({ delayMs: 1000 });
    const error = await rejectionOf(stt({ timeoutMs: 200 }).transcribe(speech));
    expect(error).toMatchObject({ code: 'STT_TIMEOUT' });
  });

  it('gives STT_FAILED with the status when the provider answers 500, naming no key or URL', async () => {
    double.configure({ status: 500 });
    const error = await rejectionOf(stt().transcribe(speech));
    expect(error).toBeInstanceOf(TranscriptionError);
    expect(error).toMatchObject({ code: 'STT_FAILED', status: 500 });
    expect(error.message).toBe('The speech-to-text provider answered 500');
    expect(error.message).not.toMatch(/sk-test-secret|127\.0\.0\.1/);
  });

  it('gives STT_FAILED for an answer without a transcript', async () => {
    for (const body of ['not json', '{"transcript":"hi"}', '{"text":42}']) {
      double.configure({ body });
      const error = await rejectionOf(stt().transcribe(speech));
      expect(error).toMatchObject({ code: 'STT_FAILED', status: 200 });
      expect(error.message).toMatch(/without a transcript/);
    }
  });

  it('gives STT_FAILED for an answer too large to be a transcript', async () => {
    double.configure({ body: JSON.stringify({ text: 'a'.repeat(TRANSCRIPTION_MAX_ANSWER_BYTES) }) });
    const error = await rejectionOf(stt().transcribe(speech));
    expect(error).toMatchObject({ code: 'STT_FAILED', message: expect.stringContaining('more than') });
  });

  it('gives STT_FAILED when the provider cannot be reached', async () => {
    const closed = await startSttDouble();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const error = await rejectionOf(stt({ baseUrl }).transcribe(speech));
    expect(error).toBeInstanceOf(TranscriptionError);
    expect(error).toMatchObject({
      code: 'STT_FAILED',
      message: expect.stringContaining('cannot be reached'),
    });
    expect(error.message).not.toContain(baseUrl);
  });

  it("rejects with the caller's abort reason, not a TranscriptionError, and closes the request", async () => {
    double.configure({ hang: true });
    const abandonedBefore = double.abandoned;
    const controller = new AbortController();
    const pending = stt().transcribe(speech, controller.signal);
    await waitFor(() => double.requests.length === 1);
    controller.abort(new Error('barge-in'));
    const error = await rejectionOf(pending);
    expect(error).not.toBeInstanceOf(TranscriptionError);
    expect(error.message).toBe('barge-in');
    await waitFor(() => double.abandoned > abandonedBefore);
  });

  it('has no provider without STT_BASE_URL, and one with it', () => {
    expect(createSpeechToText(undefined)).toBeUndefined();
    expect(createSpeechToText(loadConfig({}).stt)).toBeUndefined();
    const configured = loadConfig({ STT_BASE_URL: double.baseUrl, STT_API_KEY: 'k' }).stt;
    expect(createSpeechToText(configured)).toEqual(
      expect.objectContaining({ transcribe: expect.any(Function) }),
    );
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
