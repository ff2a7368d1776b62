import fc from 'fast-check';
import WebSocket from 'ws';
import { ServerMessage } from '../../../src/sessions/stream/protocol';
import { ODD_STRINGS } from './invalid-arbitrary';

/** One frame a client sends, and what the server must answer (docs/voice-stream.md "Errors"). */
export interface Frame {
  label: string;
  data: string | Buffer;
  binary: boolean;
  /** The error codes one of which must answer the frame; [] when none is due. */
  expect: string[];
  /** The server must close the stream with this code (and nothing more is sent on it). */
  closes?: number;
}

/** A frame shows as its label in a failure report (its data may be 300 KB). */
const labelled = (frame: Frame): Frame =>
  Object.defineProperty(frame, fc.toStringMethod, {
    value: () => `${frame.label} (${frame.data.length} bytes)`,
  });

const text = (label: string, data: string, expect: string[], closes?: number): Frame =>
  labelled({ label, data, binary: false, expect, closes });
const json = (label: string, value: unknown, expect: string[]) => text(label, JSON.stringify(value), expect);

const CLIENT_TYPES = new Set(['input.text', 'interrupt', 'end']);

/**
 * Frames a client may send besides good ones: malformed JSON, unknown types, wrong field types,
 * oversized text and audio frames, bad audio; plus an interrupt and a short text turn, which are
 * answered by no error. `end` is left out (it closes the stream by design).
 */
export function frameArbitrary(): fc.Arbitrary<Frame> {
  const invalid = ['INVALID_MESSAGE'];
  return fc.oneof(
    fc
      .constantFrom('{', '[1,2]', 'null', '"input.text"', '123', '', '{"type":"input.text",', '\u0000')
      .map((s) => text('malformed JSON', s, invalid)),
    fc
      .string({ maxLength: 30 })
      .filter((t) => !CLIENT_TYPES.has(t))
      .map((type) => json('unknown type', { type }, ['UNKNOWN_TYPE'])),
    fc
      .constantFrom(5, null, true, ['input.text'], { a: 1 })
      .map((type) => json('type not a string', { type }, ['UNKNOWN_TYPE'])),
    fc
      .oneof(
        fc.constantFrom<unknown>(5, null, true, [], {}, '', '   ', 'x'.repeat(2001)),
        fc.constantFrom(...ODD_STRINGS.filter((s) => s.includes('\u0000') || s.includes('\ud800'))),
      )
      .map((value) => json('input.text with a bad text', { type: 'input.text', text: value }, invalid)),
    fc
      .constantFrom('interrupt', 'end', 'input.text')
      .map((type) => json('an unknown field', { type, text: 'hi', extra: 1 }, invalid)),
    fc.constant(
      text('a text frame over 16 KiB', JSON.stringify({ type: 'input.text', text: 'x'.repeat(17_000) }), [
        'FRAME_TOO_LARGE',
      ]),
    ),
    fc.constant(text('a text frame over 256 KiB', 'x'.repeat(300_000), [], 1009)),
    fc.constantFrom(0, 1, 3, 4097).map((n) => binary(`${n} bytes of audio`, n, ['INVALID_AUDIO'])),
    fc.constant(binary('an audio frame over 64 KiB', 70_000, ['FRAME_TOO_LARGE'])),
    fc.constant(binary('20 ms of silence', 640, [])),
    fc.constant(json('interrupt', { type: 'interrupt' }, [])),
    fc.constant(json('a text turn', { type: 'input.text', text: 'Hello, is anyone there?' }, [])),
  );
}

function binary(label: string, bytes: number, expect: string[]): Frame {
  return labelled({ label, data: Buffer.alloc(bytes), binary: true, expect });
}

/** A live stream under test: every message it received, whether it closed and how. */
export class StreamUnderTest {
  readonly messages: ServerMessage[] = [];
  readonly problems: string[] = [];
  closed?: { code: number; reason: string };
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      if (isBinary) return; // reply audio
      const raw = data.toString();
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
      const parsed = ServerMessage.safeParse(value);
      if (!parsed.success) this.problems.push(`a message off the protocol: ${raw.slice(0, 200)}`);
      else this.messages.push(parsed.data);
      this.wake();
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    socket.on('error', (error) => this.problems.push(`socket error: ${error.message}`));
  }

  static open(url: string, headers: Record<string, string>): Promise<StreamUnderTest> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      const stream = new StreamUnderTest(socket);
      socket.once('open', () => resolve(stream));
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `done` holds (checked on every message and on close), or after `ms` with false. */
  async until(done: () => boolean, ms = 5000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (this.closed || Date.now() > deadline) return done();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }
}

/** What a refused upgrade answered: its status and body (or why there was none). */
export function upgradeAnswer(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; opened: boolean }>((resolve) => {
    const socket = new WebSocket(url, { headers });
    const timer = setTimeout(() => {
      socket.terminate();
      resolve({ status: 0, body: 'no answer within 10 s', opened: false });
    }, 10_000);
    socket.on('open', () => {
      clearTimeout(timer);
      socket.close();
      resolve({ status: 101, body: '', opened: true });
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body, opened: false });
      });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: 0, body: `connection failed: ${error.message}`, opened: false });
    });
  });
}
