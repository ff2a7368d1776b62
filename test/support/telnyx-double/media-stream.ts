import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import {
  type MessageFromTelnyxInput,
  parseMessageToTelnyx,
  TELNYX_MEDIA_FORMAT,
} from '../../../src/telephony/telnyx/media-messages';
import { type LineOptions, LineSignal } from '../twilio-double/line-signal';
import type { StreamReceipts } from '../twilio-double/media-stream';
import { PlaybackBuffer } from '../twilio-double/playback';

const FRAME_MS = 20;

export interface TelnyxStreamOptions extends LineOptions {
  url: string;
  userId: string;
  callControlId: string;
  callSessionId: string;
  from: string;
  to: string;
  /** The `client_state` of the command that started the stream, handed back in `start`. */
  clientState?: string | null;
}

/**
 * Telnyx's side of a bidirectional media stream (RTP mode, PCMU), as its documentation describes
 * it: Telnyx opens the WebSocket to the `stream_url` (no signature on the upgrade), sends
 * `connected` and `start` (the call, the command's `client_state`, the media format), then one
 * 20 ms PCMU `media` frame of the caller's track every 20 ms in real time: the caller's speech
 * (`say`) or silence, with the line's echo and noise when asked. The platform's `media` is played
 * from a buffer in real time, a `mark` sent back once the media before it has played, and `clear`
 * drops the buffer and sends back the queued marks (the Twilio double's line and playback, which
 * are the same on every carrier).
 */
export class TelnyxMediaStream extends EventEmitter {
  readonly streamId = randomUUID();
  readonly received: StreamReceipts = { media: [], marks: [], clears: [], invalid: [] };
  readonly heard: { at: number; bytes: Uint8Array }[] = [];
  refusedWith?: number;
  private readonly playback: PlaybackBuffer;
  private readonly line: LineSignal;
  private socket?: WebSocket;
  private sequence = 0;
  private chunk = 0;
  private startedAt = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  readonly ended: Promise<'platform' | 'carrier' | 'refused'>;
  private end!: (by: 'platform' | 'carrier' | 'refused') => void;

  constructor(private readonly options: TelnyxStreamOptions) {
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
    const socket = new WebSocket(this.options.url);
    this.socket = socket;
    return new Promise((resolve) => {
      socket.on('unexpected-response', (_request, response) => {
        this.refusedWith = response.statusCode;
        response.resume();
        this.finish('refused');
        resolve();
      });
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

  /** The caller presses a key: a `dtmf` message. */
  pressKey(digit: string): void {
    this.send({ event: 'dtmf', ...this.counted(), dtmf: { digit } });
  }

  /** Streaming stops on Telnyx's side (the call ended): `stop`, then the WebSocket closes. */
  async stop(): Promise<void> {
    if (this.closed) return;
    const stop = { user_id: this.options.userId, call_control_id: this.options.callControlId };
    this.send({ event: 'stop', ...this.counted(), stop });
    this.finish('carrier');
    await this.ended;
  }

  /** Unplayed audio held in the playback buffer, in milliseconds. */
  get bufferedMs(): number {
    return this.playback.bufferedBytes / (TELNYX_MEDIA_FORMAT.sample_rate / 1000);
  }

  private counted() {
    this.sequence += 1;
    return { sequence_number: String(this.sequence), stream_id: this.streamId };
  }

  private send(message: MessageFromTelnyxInput): void {
    if (this.closed || this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  private begin(): void {
    const { userId, callControlId, callSessionId, from, to, clientState } = this.options;
    this.send({ event: 'connected', version: '1.0.0' });
    const start = {
      user_id: userId,
      call_control_id: callControlId,
      call_session_id: callSessionId,
      from,
      to,
    };
    this.send({
      event: 'start',
      ...this.counted(),
      start: { ...start, client_state: clientState ?? null, media_format: { ...TELNYX_MEDIA_FORMAT } },
    });
    this.startedAt = performance.now();
    this.tick();
  }

  /** One 20 ms tick: the platform's next frame plays, the caller's next frame is sent (catching up if late). */
  private tick(): void {
    while (!this.closed && this.startedAt + this.chunk * FRAME_MS <= performance.now()) {
      const at = performance.now();
      const played = this.playback.playFrame();
      if (played.audioBytes > 0) this.heard.push({ at, bytes: played.frame.slice(0, played.audioBytes) });
      const payload = Buffer.from(this.line.nextFrame(played.frame)).toString('base64');
      this.chunk += 1;
      const media = {
        track: 'inbound' as const,
        chunk: String(this.chunk),
        timestamp: String((this.chunk - 1) * FRAME_MS),
        payload,
      };
      this.send({ event: 'media', ...this.counted(), media });
      this.emit('change');
    }
    if (this.closed) return;
    const next = this.startedAt + this.chunk * FRAME_MS - performance.now();
    this.timer = setTimeout(() => this.tick(), Math.max(0, next));
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const at = performance.now();
    const text = data.toString('utf8');
    const parsed = isBinary ? undefined : parseMessageToTelnyx(text);
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
