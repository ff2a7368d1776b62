import { VoicePlatformError } from './errors';
import type { ResultOf } from './operation-types';

/**
 * The live voice stream of a session (docs/voice-stream.md), over the global WebSocket (Node 22+
 * and browsers). The client asks for a client token with its API key (`POST
 * /sessions/:id/client-token`) and opens `…/sessions/:id/stream?token=…`, so the same code runs
 * where a WebSocket cannot carry an Authorization header.
 */

type AudioFormat = { encoding: 'pcm_s16le'; sampleRate: number; channels: 1 };

/** Every message the server sends, by `type`. */
export type StreamServerMessage =
  | {
      type: 'session.ready';
      sessionId: string;
      greeting: string;
      input: { encoding: 'pcm_s16le'; sampleRate: 16000; channels: 1; maxFrameBytes: number };
      speechToText: boolean;
    }
  | { type: 'input.transcript'; turnId: string; text: string }
  | { type: 'reply.delta'; turnId: string; text: string }
  | {
      type: 'reply.audio';
      turnId: string;
      segment: number;
      text: string;
      hold: boolean;
      format: AudioFormat;
      bytes: number | null;
    }
  | { type: 'reply.audio.done'; turnId: string; segment: number; bytes: number }
  | { type: 'tool.started'; turnId: string; callId: string; name: string; arguments: string }
  | {
      type: 'tool.finished';
      turnId: string;
      callId: string;
      name: string;
      success: boolean;
      durationMs: number;
      error?: string;
    }
  | {
      type: 'workflow.step';
      turnId: string;
      workflowName: string;
      executionId: string;
      nodeId: string | null;
      nodeType: string | null;
      status: string;
      speech: string[];
    }
  | { type: 'reply.done'; turnId: string; text: string; interrupted: boolean }
  | { type: 'turn.recorded'; turnId: string; turn: ResultOf<'sessions.turns.create'> }
  | { type: 'interrupted'; turnId: string; spokenText: string }
  | { type: 'error'; code: string; message: string }
  | {
      type: 'session.ended';
      sessionId: string;
      reason: 'ended' | 'idle_timeout' | 'disconnected';
      turnCount: number;
    };

const MAX_QUEUED = 1000;

/** A binary frame of reply audio: part of the segment its `reply.audio` announced. */
export interface StreamAudioChunk {
  type: 'reply.audio.chunk';
  turnId: string;
  segment: number;
  format: AudioFormat;
  data: Uint8Array;
}

export type StreamEvent = StreamServerMessage | StreamAudioChunk;
export type StreamEventOf<T extends StreamEvent['type']> = Extract<StreamEvent, { type: T }>;
type Handler<T extends StreamEvent['type']> = (event: StreamEventOf<T>) => void;

/** An open live stream: send input, listen by type, or iterate every event with `for await`. */
export class SessionStream implements AsyncIterable<StreamEvent> {
  /** Resolves with `session.ready` (after which the greeting plays). */
  readonly ready: Promise<StreamEventOf<'session.ready'>>;
  /** Resolves when the WebSocket closes, with its close code. */
  readonly closed: Promise<number>;
  private readonly handlers = new Map<string, Set<(event: StreamEvent) => void>>();
  private readonly queue: StreamEvent[] = [];
  private wake?: () => void;
  private done = false;
  private segment?: Extract<StreamEvent, { type: 'reply.audio' }>;

  constructor(private readonly socket: WebSocket) {
    socket.binaryType = 'arraybuffer';
    this.ready = new Promise((resolve, reject) => {
      this.on('session.ready', resolve);
      socket.addEventListener('close', (e) => reject(new VoicePlatformError(`Stream closed (${e.code})`)));
    });
    this.ready.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      socket.addEventListener('close', (e) => {
        this.done = true;
        this.wake?.();
        resolve(e.code);
      });
    });
    socket.addEventListener('message', (e) => this.receive(e.data));
  }

  private receive(data: unknown): void {
    if (typeof data === 'string') {
      const message = JSON.parse(data) as StreamServerMessage;
      if (message.type === 'reply.audio') this.segment = message;
      this.emit(message);
    } else if (this.segment && data instanceof ArrayBuffer) {
      const { turnId, segment, format } = this.segment;
      this.emit({ type: 'reply.audio.chunk', turnId, segment, format, data: new Uint8Array(data) });
    }
  }

  private emit(event: StreamEvent): void {
    for (const handler of this.handlers.get(event.type) ?? []) handler(event);
    this.queue.push(event);
    // events wait for an iterator; with none, only the latest are kept
    if (!this.wake && this.queue.length > MAX_QUEUED) this.queue.shift();
    this.wake?.();
  }

  /** Calls `handler` for each event of `type`; returns a function that stops it. */
  on<T extends StreamEvent['type']>(type: T, handler: Handler<T>): () => void {
    const set = this.handlers.get(type) ?? new Set();
    this.handlers.set(type, set);
    const listener = handler as (event: StreamEvent) => void;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** The next event of `type` (e.g. `turn.recorded` after `sendText`). */
  next<T extends StreamEvent['type']>(type: T): Promise<StreamEventOf<T>> {
    return new Promise((resolve) => {
      const stop = this.on(type, (event) => {
        stop();
        resolve(event);
      });
    });
  }

  private send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** What the caller said, as text: a turn. */
  sendText(text: string): void {
    this.send({ type: 'input.text', text });
  }

  /** Keys pressed on a keypad (`0-9`, `*`, `#`, `A-D`). */
  sendDtmf(digits: string): void {
    this.send({ type: 'input.dtmf', digits });
  }

  /** Caller audio: PCM16 little-endian, mono, 16 kHz, at most 64 KiB a frame. */
  sendAudio(pcm: ArrayBuffer | Uint8Array): void {
    this.socket.send(pcm);
  }

  /** Stops the agent's reply now. */
  interrupt(): void {
    this.send({ type: 'interrupt' });
  }

  /** Ends the session: the server answers `session.ended` and closes. */
  end(): void {
    this.send({ type: 'end' });
  }

  /** Closes the stream without ending the session (reconnect and go on). */
  close(): void {
    this.socket.close(1000);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    for (;;) {
      const event = this.queue.shift();
      if (event) yield event;
      else if (this.done) return;
      else {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    }
  }
}

/** Opens a WebSocket and waits for it to open (or fail). */
export function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const stream = { socket };
    socket.addEventListener('open', () => resolve(stream.socket), { once: true });
    socket.addEventListener(
      'error',
      () => reject(new VoicePlatformError(`The live stream did not open: ${url.split('?')[0]}`)),
      { once: true },
    );
  });
}
