import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mulaw } from 'alawmulaw';
import twilio from 'twilio';
import WebSocket from 'ws';
import {
  type MessageFromTwilioInput,
  parseMessageToTwilio,
  TWILIO_FRAME_MS,
  TWILIO_MEDIA_FORMAT,
} from '../../../src/telephony/twilio/media-messages';
import { type LineOptions, LineSignal } from './line-signal';
import { type ClearRecord, type MarkRecord, PlaybackBuffer } from './playback';

/** How the double signs the stream's upgrade: as Twilio does, with a wrong signature, or without one. */
export type SignatureMode = 'valid' | 'wrong' | 'missing';

export interface MediaStreamOptions extends LineOptions {
  url: string;
  accountSid: string;
  authToken: string;
  callSid: string;
  /** The `<Parameter>`s of the TwiML's `<Stream>`, handed over as `customParameters`. */
  customParameters: Record<string, string>;
  signature?: SignatureMode;
}

/** What the double received from the platform on the stream, with receive times (performance.now()). */
export interface StreamReceipts {
  media: { at: number; bytes: Uint8Array }[];
  marks: MarkRecord[];
  clears: ClearRecord[];
  /** Text frames that were not a message the platform may send, with why. */
  invalid: { at: number; text: string; error: string }[];
}

/**
 * Twilio's side of a bidirectional media stream (https://www.twilio.com/docs/voice/media-streams):
 * it opens the WebSocket with the upgrade signed as Twilio signs it (`X-Twilio-Signature` over the
 * stream URL alone), sends `connected` and `start`, then one 20 ms μ-law `media` frame every 20 ms
 * in real time, from the start to the hang-up: the caller's audio (`say`) or silence between, with
 * the line's echo and noise mixed in when asked (`LineOptions`). The platform's `media` goes to a
 * playback buffer played in real time; marks are echoed when their audio has played, and a `clear`
 * drops the buffer and echoes the pending marks. Everything received is recorded in `received`, and
 * what the caller heard in `heard`.
 */
export class TwilioMediaStream extends EventEmitter {
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  readonly received: StreamReceipts = { media: [], marks: [], clears: [], invalid: [] };
  /** The audio the caller heard, frame by frame: when each frame with some audio started to play. */
  readonly heard: { at: number; bytes: Uint8Array }[] = [];
  /** When each caller frame was sent (performance.now()), in order. */
  readonly sentFrameTimes: number[] = [];
  /** The upgrade's HTTP status when it was refused (the stream never opened). */
  refusedWith?: number;
  private readonly playback: PlaybackBuffer;
  private readonly line: LineSignal;
  private socket?: WebSocket;
  private sequenceNumber = 0;
  private chunk = 0;
  private startedAt = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** Resolves when the stream has ended, whoever ended it. */
  readonly ended: Promise<'platform' | 'carrier' | 'refused'>;
  private end!: (by: 'platform' | 'carrier' | 'refused') => void;

  constructor(private readonly options: MediaStreamOptions) {
    super();
    this.playback = new PlaybackBuffer((mark) =>
      this.send({ event: 'mark', ...this.counted(), mark: { name: mark.name } }),
    );
    this.received.marks = this.playback.marks;
    this.received.clears = this.playback.clears;
    this.line = new LineSignal(options);
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  /** Opens the stream; resolves once `connected` and `start` are sent, or when the upgrade was refused. */
  open(): Promise<void> {
    const { url, authToken } = this.options;
    const mode = this.options.signature ?? 'valid';
    const signature = twilio.getExpectedTwilioSignature(
      mode === 'wrong' ? `${authToken}x` : authToken,
      url,
      {},
    );
    const socket = new WebSocket(url, {
      headers: mode === 'missing' ? {} : { 'X-Twilio-Signature': signature },
    });
    this.socket = socket;
    return new Promise((resolve) => {
      socket.on('unexpected-response', (_request, response) => {
        this.refusedWith = response.statusCode;
        response.resume();
        this.finish('refused');
        resolve();
      });
      // an error before the upgrade is a refusal; one after it, the platform's end of the stream
      socket.on('error', () => {
        this.finish(this.startedAt ? 'platform' : 'refused');
        resolve();
      });
      socket.on('open', () => {
        this.begin();
        resolve();
      });
      socket.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
      socket.on('close', () => this.finish('platform'));
    });
  }

  /** Says `pcm16` (mono, 8 kHz) on the caller's side; resolves when its last frame has been sent. */
  say(pcm16: Int16Array): Promise<void> {
    return this.closed ? Promise.resolve() : this.line.say(pcm16);
  }

  /** Keeps the caller silent for `ms` after what is already queued. */
  pause(ms: number): Promise<void> {
    return this.say(new Int16Array(Math.round((ms * TWILIO_MEDIA_FORMAT.sampleRate) / 1000)));
  }

  /** The caller presses a key: a `dtmf` message, sent at once. */
  pressKey(digit: string): void {
    this.send({ event: 'dtmf', ...this.counted(), dtmf: { track: 'inbound_track', digit } });
  }

  /** The call ends on the carrier's side: `stop`, then the WebSocket is closed. */
  async stop(): Promise<void> {
    if (this.closed) return;
    const { accountSid, callSid } = this.options;
    this.send({ event: 'stop', ...this.counted(), stop: { accountSid, callSid } });
    this.finish('carrier');
    await this.ended;
  }

  /** μ-law the platform sent, all of it, in order (what it asked to be played). */
  receivedAudio(): Uint8Array {
    return Buffer.concat(this.received.media.map((m) => m.bytes));
  }

  /** The caller's earpiece: the platform's audio as played, without the silence between (PCM16, 8 kHz). */
  heardAudio(): Int16Array {
    return mulaw.decode(Buffer.concat(this.heard.map((h) => h.bytes)));
  }

  /** Unplayed audio held in the playback buffer, in milliseconds. */
  /** Reply frames that reached the carrier after their playback time (`PlaybackBuffer.underruns`). */
  get underruns(): number {
    return this.playback.underruns;
  }

  get bufferedMs(): number {
    return this.playback.bufferedBytes / (TWILIO_MEDIA_FORMAT.sampleRate / 1000);
  }

  /** Resolves once `check()` holds (checked at each event); rejects after `timeoutMs`. */
  until(check: () => boolean, timeoutMs = 5000, what = 'the stream condition'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.off('change', listener);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off('change', listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.on('change', listener);
    });
  }

  private counted() {
    this.sequenceNumber += 1;
    return { sequenceNumber: String(this.sequenceNumber), streamSid: this.streamSid };
  }

  private send(message: MessageFromTwilioInput): void {
    if (this.closed || this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  private begin(): void {
    const { accountSid, callSid, customParameters } = this.options;
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const start = { streamSid: this.streamSid, accountSid, callSid, tracks: ['inbound' as const] };
    this.send({
      event: 'start',
      ...this.counted(),
      start: { ...start, customParameters, mediaFormat: { ...TWILIO_MEDIA_FORMAT } },
    });
    this.startedAt = performance.now();
    this.tick();
  }

  /** One 20 ms tick of the line: the platform's next frame plays, the caller's next frame is sent. */
  private tick(): void {
    if (this.closed) return;
    // behind (a busy event loop): catch up, so the line keeps real time on average
    while (!this.closed && this.startedAt + this.chunk * TWILIO_FRAME_MS <= performance.now()) {
      const at = performance.now();
      const played = this.playback.playFrame();
      if (played.audioBytes > 0) this.heard.push({ at, bytes: played.frame.slice(0, played.audioBytes) });
      const frame = this.line.nextFrame(played.frame);
      this.chunk += 1;
      const timestamp = String((this.chunk - 1) * TWILIO_FRAME_MS);
      const payload = Buffer.from(frame).toString('base64');
      this.send({
        event: 'media',
        ...this.counted(),
        media: { track: 'inbound', chunk: String(this.chunk), timestamp, payload },
      });
      this.sentFrameTimes.push(at);
      this.emit('change');
    }
    const next = this.startedAt + this.chunk * TWILIO_FRAME_MS - performance.now();
    this.timer = setTimeout(() => this.tick(), Math.max(0, next));
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const at = performance.now();
    const text = data.toString('utf8');
    const parsed = isBinary ? undefined : parseMessageToTwilio(text);
    if (!parsed?.ok) {
      const error = parsed ? `${parsed.error.name}: ${parsed.error.message}` : 'a binary frame';
      this.received.invalid.push({ at, text: text.slice(0, 200), error });
    } else if (parsed.message.event === 'media') {
      const bytes = new Uint8Array(Buffer.from(parsed.message.media.payload, 'base64'));
      this.received.media.push({ at, bytes });
      this.playback.enqueueAudio(bytes);
    } else if (parsed.message.event === 'mark') this.playback.enqueueMark(parsed.message.mark.name);
    else this.playback.clear();
    this.emit('change');
  }

  private finish(by: 'platform' | 'carrier' | 'refused'): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.line.close();
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
    this.end(by);
    this.emit('change');
  }
}
