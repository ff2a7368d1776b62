/**
 * A small typed client of the live voice stream (docs/voice-stream.md), for browsers and Node: the
 * console and the tests use it. Its types come from the protocol's zod schemas; it imports no zod
 * itself (a browser bundle stays small), and `check` can parse each message with the schema (the
 * tests do). Each `reply.audio` header's PCM arrives in the binary frames after it.
 */
import type { AudioFormat, ClientMessage, ServerMessage, ServerMessageOf } from './protocol';

/** The WebSocket a client uses: the browser's, Node's global one, or the `ws` package's (headers). */
export interface WebSocketLike {
  binaryType: string;
  readyState: number;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface VoiceStreamOptions {
  /** `ws(s)://host/api/v2/developers/sessions/<id>/stream`, with `?token=` for a browser. */
  url: string;
  /** Makes the socket (default: the global WebSocket); Node may pass the `ws` package with headers. */
  connect?: (url: string) => WebSocketLike;
  /** Checks each message as it arrives (e.g. `ServerMessage.parse` of the protocol); throws to refuse it. */
  check?: (message: unknown) => ServerMessage;
}

/** Without a check: any object with a string `type` is taken as the server says it. */
const trust = (message: unknown): ServerMessage => {
  if (typeof (message as { type?: unknown })?.type !== 'string') throw new Error('Not a stream message');
  return message as ServerMessage;
};

type Listener = (message: ServerMessage) => void;

export class VoiceStreamClient {
  private readonly listeners = new Set<Listener>();
  private readonly audioListeners = new Set<(pcm: Int16Array, format: AudioFormat, turnId: string) => void>();
  private currentAudio?: ServerMessageOf<'reply.audio'>;
  /** Every message received, in order (what tests read). */
  readonly received: ServerMessage[] = [];
  /** Where the next `next` starts looking in `received`. */
  private cursor = 0;
  /** Set when the socket closes. */
  closed?: { code: number; reason: string };

  private constructor(
    private readonly socket: WebSocketLike,
    private readonly check: (message: unknown) => ServerMessage,
  ) {
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      this.closed = { code: event.code, reason: event.reason };
    };
  }

  /** Opens the stream; answers once the socket is open (before `session.ready`). */
  static open(options: VoiceStreamOptions): Promise<VoiceStreamClient> {
    const make = options.connect ?? ((url: string) => new WebSocket(url) as unknown as WebSocketLike);
    const socket = make(options.url);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(new VoiceStreamClient(socket, options.check ?? trust));
      socket.onerror = (error) =>
        reject(error instanceof Error ? error : new Error('The stream could not open'));
      socket.onclose = (event) => reject(new Error(`The stream closed: ${event.code} ${event.reason}`));
    });
  }

  /** Every server message as it arrives; answers a function that stops listening. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reply audio as it arrives: PCM16 samples, their format, and the turn they belong to. */
  onAudio(listener: (pcm: Int16Array, format: AudioFormat, turnId: string) => void): () => void {
    this.audioListeners.add(listener);
    return () => this.audioListeners.delete(listener);
  }

  /**
   * The next message of `type` (matching `where`) after the one the previous `next` answered, as
   * received already or within `timeoutMs`.
   */
  next<T extends ServerMessage['type']>(
    type: T,
    where: (message: ServerMessageOf<T>) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<ServerMessageOf<T>> {
    const matches = (m: ServerMessage) => m.type === type && where(m as ServerMessageOf<T>);
    const found = this.received.findIndex((m, i) => i >= this.cursor && matches(m));
    if (found >= 0) {
      this.cursor = found + 1;
      return Promise.resolve(this.received[found] as ServerMessageOf<T>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`No ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const stop = this.on((message) => {
        if (!matches(message)) return;
        clearTimeout(timer);
        stop();
        this.cursor = this.received.length;
        resolve(message as ServerMessageOf<T>);
      });
    });
  }

  sendText(text: string): void {
    this.send({ type: 'input.text', text });
  }

  /** Keys pressed on a keypad (0-9, *, #, A-D), collected by the server as a phone call's. */
  sendKeys(digits: string): void {
    this.send({ type: 'input.dtmf', digits });
  }

  /** Caller audio: PCM16 LE mono 16 kHz, at most 64 KiB a frame. */
  sendAudio(pcm: Int16Array): void {
    this.socket.send(pcm);
  }

  interrupt(): void {
    this.send({ type: 'interrupt' });
  }

  /** Ends the session; the server answers `session.ended` and closes. */
  end(): void {
    this.send({ type: 'end' });
  }

  /** Any message, as the protocol defines them (or raw text, to test a server's refusals). */
  send(message: ClientMessage | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  close(): void {
    this.socket.close(1000, 'client closed');
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') {
      const header = this.currentAudio;
      if (!header) return;
      const bytes = data instanceof ArrayBuffer ? data : (data as ArrayBufferView).buffer;
      const pcm = new Int16Array(bytes.slice(0));
      for (const listener of this.audioListeners) listener(pcm, header.format, header.turnId);
      return;
    }
    const message = this.check(JSON.parse(data));
    if (message.type === 'reply.audio') this.currentAudio = message;
    this.received.push(message);
    for (const listener of [...this.listeners]) listener(message);
  }
}
