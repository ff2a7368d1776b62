import type { Speech, SpeechPcm, SpeechPcmStream, SpeechPreview, SpeechStats } from '../common/speech';
import type { Config } from '../config/env';
import type { Logger } from '../logging/logger';
import { dataUrl } from './audio';
import { ByteLru } from './byte-lru';
import { type ReadAheadPcm, wholeSpeechStream } from './pcm-stream';
import { type ProviderVoiceAccess, parseProviderVoice, providerSpeechStream } from './provider-voices';
import { remoteSpeech, remoteSpeechPcm } from './remote-tts';
import { SpeechPool } from './speech-pool';
import {
  type CatalogVoice,
  ESPEAK_CATALOG,
  type EspeakSettings,
  engineVoiceName,
  findCatalogVoice,
} from './voices.catalog';

const engineJob = (s: EspeakSettings) => ({ engineVoice: engineVoiceName(s), rate: s.rate, pitch: s.pitch });

/** A preview result (docs/api-contract.md "Voice previews"). */
export type Preview = SpeechPreview;

/** Thrown for text that produces no audio at all (only punctuation, for instance). */
export class NothingToSayError extends Error {
  constructor() {
    super('The text has nothing to speak');
    this.name = 'NothingToSayError';
  }
}

/**
 * The byte budget of the samples speakPcm keeps (never more than VOICE_CACHE_MB): about 95 s of eSpeak
 * NG speech at 22050 Hz, for the greetings and hold phrases every call repeats.
 */
export const PCM_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Makes voice previews and samples for streams: eSpeak NG voices on the worker-thread pool, remote
 * voices on the configured OpenAI-compatible endpoint. Previews are cached by voice and text in an LRU
 * bounded by bytes, and identical previews in flight are made once; samples have an LRU of their own.
 */
export class SpeechSynthesizer implements Speech {
  readonly pool: SpeechPool;
  private readonly cache: ByteLru<string, Preview>;
  private readonly inflight = new Map<string, Promise<Preview>>();
  private readonly pcmCache: ByteLru<string, SpeechPcm>;

  constructor(
    private readonly config: Pick<Config, 'voices' | 'outbound'>,
    logger: Logger,
    /** The accounts' voice providers (voice ids `prov_…/model/voice`); none: catalog voices only. */
    private readonly providerVoices?: ProviderVoiceAccess,
  ) {
    this.pool = new SpeechPool({
      size: config.voices.workers,
      logger,
      // every language once, in each thread (the first sentence in a language is the slow one)
      warmUp: ESPEAK_CATALOG.map((v) => ({ ...engineJob(v.espeak!), text: v.sampleText })),
    });
    this.cache = new ByteLru(config.voices.cacheBytes, (p) => p.audioUrl.length + p.text.length * 2 + 64);
    this.pcmCache = new ByteLru(
      Math.min(PCM_CACHE_BYTES, config.voices.cacheBytes),
      (s) => s.pcm.byteLength + 64,
    );
  }

  /** Starts the threads; each then speaks every built-in voice's sample text once, when idle (warm-up). */
  start(): void {
    this.pool.start();
  }

  warmed(): Promise<void> {
    return this.pool.warmed();
  }

  /** `text` in the catalog voice `voiceId` (remote voices included when configured); undefined when unknown. */
  async speak(voiceId: string, text: string): Promise<{ preview: Preview; cached: boolean } | undefined> {
    if (parseProviderVoice(voiceId)) return this.providerPreview(voiceId, text);
    const voice = findCatalogVoice(voiceId, this.config);
    return voice && this.preview(voice, text);
  }

  /** The preview of `text` in `voice`, from the cache when it was made before. */
  async preview(voice: CatalogVoice, text: string): Promise<{ preview: Preview; cached: boolean }> {
    const key = `${voice.id}\n${text}`;
    const hit = this.cache.get(key);
    if (hit) return { preview: hit, cached: true };
    return { preview: await this.make(voice, text), cached: false };
  }

  /**
   * `text` in the catalog voice `voiceId` as 16-bit mono samples, for a stream: 22050 Hz from eSpeak NG,
   * 24000 Hz from a remote voice (its `pcm` format); undefined when the voice is unknown. Kept in a
   * small LRU by voice and text; every caller gets an array of its own.
   */
  async speakPcm(voiceId: string, text: string): Promise<SpeechPcm | undefined> {
    const voice = parseProviderVoice(voiceId) ? undefined : findCatalogVoice(voiceId, this.config);
    const key = `${voice?.id ?? voiceId}\n${text}`;
    const hit = this.pcmCache.get(key);
    if (hit) return { pcm: hit.pcm.slice(), sampleRate: hit.sampleRate };
    if (!voice) {
      const stream = await this.providerStream(voiceId, text);
      return stream && { pcm: (await stream.done).slice(), sampleRate: stream.sampleRate };
    }
    const made = await this.synthesizePcm(voice, text);
    this.pcmCache.set(key, { pcm: made.pcm.slice(), sampleRate: made.sampleRate });
    return made;
  }

  /**
   * `text` as samples as they are made (a reply's segment): a provider voice streams from its first
   * bytes (and its whole speech is kept in the samples' LRU once it has all come); a catalog voice,
   * or speech made before, is one chunk. Undefined when the voice is unknown.
   */
  async streamPcm(voiceId: string, text: string): Promise<SpeechPcmStream | undefined> {
    const hit = parseProviderVoice(voiceId) && this.pcmCache.get(`${voiceId}\n${text}`);
    if (parseProviderVoice(voiceId) && !hit) return this.providerStream(voiceId, text);
    const whole = await this.speakPcm(voiceId, text);
    return whole && wholeSpeechStream(whole);
  }

  /** 16-bit mono samples as MP3 (32 kbps, same rate: 16000, 22050, 24000…), encoded in a speech thread. */
  async encodeMp3(pcm: Int16Array, sampleRate: number): Promise<Uint8Array> {
    return (await this.pool.encodeMp3({ pcm, sampleRate })).mp3;
  }

  stats(): SpeechStats {
    return {
      pool: this.pool.stats(),
      cache: { entries: this.cache.size, bytes: this.cache.bytes },
      pcmCache: { entries: this.pcmCache.size, bytes: this.pcmCache.bytes },
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.cache.clear();
    this.pcmCache.clear();
  }

  /**
   * `text` in one of an account's provider voices as it streams (undefined: the provider is gone),
   * metered there once the provider took the request; kept in the samples' LRU once whole.
   */
  private async providerStream(voiceId: string, text: string): Promise<ReadAheadPcm | undefined> {
    const ref = parseProviderVoice(voiceId);
    const provider = ref && (await this.providerVoices?.provider(ref.providerId));
    if (!ref || !provider) return undefined;
    const stream = await providerSpeechStream(provider, this.config.outbound, ref, text);
    this.providerVoices?.meter(provider.accountId, provider.id, [...text].length);
    const key = `${voiceId}\n${text}`;
    stream.done.then(
      (pcm) => this.pcmCache.set(key, { pcm: pcm.slice(), sampleRate: stream.sampleRate }),
      () => undefined,
    );
    return stream;
  }

  /** A provider voice's preview: its samples as MP3 (made once per voice and text, as catalog previews). */
  private async providerPreview(voiceId: string, text: string) {
    const key = `${voiceId}\n${text}`;
    const hit = this.cache.get(key);
    if (hit) return { preview: hit, cached: true };
    const made = await this.speakPcm(voiceId, text);
    if (!made) return undefined;
    if (made.pcm.length === 0) throw new NothingToSayError();
    const mp3 = await this.encodeMp3(made.pcm, made.sampleRate);
    const preview = { audioUrl: dataUrl('mp3', mp3), duration: made.pcm.length / made.sampleRate, text };
    this.cache.set(key, preview);
    return { preview, cached: false };
  }

  private make(voice: CatalogVoice, text: string): Promise<Preview> {
    const key = `${voice.id}\n${text}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const made = this.synthesize(voice, text).then(
      (preview) => {
        this.inflight.delete(key);
        this.cache.set(key, preview);
        return preview;
      },
      (error) => {
        this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, made);
    return made;
  }

  private async synthesize(voice: CatalogVoice, text: string): Promise<Preview> {
    if (voice.espeak) {
      const { mp3, samples, sampleRate } = await this.pool.synthesize({ ...engineJob(voice.espeak), text });
      if (samples === 0) throw new NothingToSayError();
      return { audioUrl: dataUrl('mp3', mp3), duration: samples / sampleRate, text };
    }
    const tts = this.config.voices.tts;
    if (voice.remoteVoice && tts) {
      const { format, bytes, duration } = await remoteSpeech(
        tts,
        this.config.outbound,
        voice.remoteVoice,
        text,
      );
      if (duration === 0) throw new NothingToSayError();
      return { audioUrl: dataUrl(format, bytes), duration, text };
    }
    throw new Error(`Voice ${voice.id} has no synthesizer`);
  }

  private async synthesizePcm(voice: CatalogVoice, text: string): Promise<SpeechPcm> {
    if (voice.espeak) {
      const job = { ...engineJob(voice.espeak), text, output: 'pcm' as const };
      const { pcm, sampleRate } = await this.pool.synthesize(job);
      return { pcm, sampleRate };
    }
    const tts = this.config.voices.tts;
    if (voice.remoteVoice && tts) return remoteSpeechPcm(tts, this.config.outbound, voice.remoteVoice, text);
    throw new Error(`Voice ${voice.id} has no synthesizer`);
  }
}
