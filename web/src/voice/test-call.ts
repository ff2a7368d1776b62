import type { ServerMessage } from '../../../src/sessions/stream/protocol';
import { VoiceStreamClient, type WebSocketLike } from '../../../src/sessions/stream/voice-stream-client';
import { api, ENVIRONMENT_HEADER, unwrap } from '../api/client';
import type { TranscriptEvent } from './call-transcript';
import { type MicCapture, startMicCapture } from './mic-capture';
import { PcmPlayer } from './pcm-player';

/** Test calls run in the test environment: its key may talk to draft personas. */
const IN_TEST = { [ENVIRONMENT_HEADER]: 'test' };
/** The caller id of the console's test calls (sessions' `userId`). */
export const TEST_CALLER_ID = 'console-test-call';

export type CallPhase = 'starting' | 'live' | 'ended' | 'failed';

export interface CallState {
  phase: CallPhase;
  sessionId?: string;
  /** The server transcribes caller audio (session.ready's `speechToText`). */
  speechToText: boolean;
  microphone: 'off' | 'starting' | 'on';
  /** Why the call failed to start, or the microphone to turn on. */
  problem?: unknown;
}

export interface CallListener {
  event(event: TranscriptEvent): void;
  state(state: CallState): void;
}

/** The stream's URL on the console's own host: ws:// or wss:// as the page was loaded. */
function streamUrl(sessionId: string, token: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/api/v2/developers/sessions/${encodeURIComponent(sessionId)}/stream?token=${encodeURIComponent(token)}`;
}

/**
 * A call with a persona from the console (docs/console.md "Test calls"): a session in the test
 * environment with recording on, a client token, the live stream (VoiceStreamClient), the reply's
 * audio played as it arrives (PcmPlayer) and the microphone sent as caller audio (startMicCapture).
 */
export class TestCall {
  private state: CallState = { phase: 'starting', speechToText: false, microphone: 'off' };
  private readonly context = new AudioContext();
  private readonly player = new PcmPlayer(this.context);
  private client?: VoiceStreamClient;
  private mic?: MicCapture;
  /** Turns whose audio is no longer played (interrupted): frames still in flight are dropped. */
  private readonly silenced = new Set<string>();
  /** The turn whose audio arrived last: what the Interrupt button silences. */
  private audioTurnId?: string;
  private released = false;
  /** Counts microphone starts and stops: a start that finishes after a later stop is undone. */
  private micAttempts = 0;

  constructor(private readonly listener: CallListener) {}

  /** Starts a session with the persona and opens its stream (call from a click: audio may then play). */
  async start(personaId: string): Promise<void> {
    this.update({ phase: 'starting' });
    void this.context.resume();
    try {
      const session = unwrap(
        await api.POST('/api/v2/developers/sessions', {
          body: { personaId, userId: TEST_CALLER_ID, recording: true },
          headers: IN_TEST,
        }),
      ).data;
      this.update({ sessionId: session.id });
      const { token } = unwrap(
        await api.POST('/api/v2/developers/sessions/{id}/client-token', {
          params: { path: { id: session.id } },
          headers: IN_TEST,
        }),
      ).data;
      this.client = await VoiceStreamClient.open({
        url: streamUrl(session.id, token),
        connect: (url) => this.connect(url),
      });
    } catch (error) {
      this.update({ phase: 'failed', problem: error });
      this.release();
      return;
    }
    if (this.released) {
      // the page closed the call while it was starting
      this.client.end();
      this.client.close();
      return;
    }
    this.client.on((message) => this.receive(message));
    this.client.onAudio((pcm, format, turnId) => {
      if (this.silenced.has(turnId)) return;
      // a new turn's reply: the caller spoke after the last one, whose audio stops if still playing
      if (this.audioTurnId !== turnId) this.silenceReply();
      this.audioTurnId = turnId;
      this.player.play(pcm, format.sampleRate);
    });
  }

  /** Typed text as the caller's words (over the agent, the server interrupts it unless it is a backchannel). */
  sendText(text: string): void {
    if (this.state.phase !== 'live' || !this.client) return;
    this.listener.event({ type: 'typed', text });
    this.client.sendText(text);
  }

  /** Keys pressed on the page's keypad: the server collects them as a phone call's (`keypad: 12`). */
  sendKeys(digits: string): void {
    if (this.state.phase !== 'live' || !this.client) return;
    this.client.sendKeys(digits);
  }

  /** Stops the reply at once (this page's playback) and asks the server to stop it too. */
  interrupt(): void {
    this.silenceReply();
    this.client?.interrupt();
  }

  /** Ends the session; the server answers `session.ended` and closes the stream. */
  end(): void {
    this.stopMicrophone();
    this.silenceReply();
    if (this.state.phase === 'live') this.client?.end();
  }

  async setMicrophone(on: boolean): Promise<void> {
    if (!on) return this.stopMicrophone();
    if (this.state.microphone !== 'off' || this.state.phase !== 'live') return;
    this.update({ microphone: 'starting', problem: undefined });
    const attempt = ++this.micAttempts;
    try {
      const mic = await startMicCapture(this.context, (pcm) => this.client?.sendAudio(pcm));
      if (this.released || attempt !== this.micAttempts) {
        // the call ended, or the microphone was turned off, while it was starting
        mic.stop();
        return;
      }
      this.mic = mic;
      this.update({ microphone: 'on' });
    } catch (error) {
      this.update({ microphone: 'off', problem: error });
    }
  }

  /** Leaves the call (the page closes): the session ends, the stream closes, audio stops. */
  close(): void {
    if (this.state.phase === 'live') this.client?.end();
    this.release();
  }

  private stopMicrophone(): void {
    this.micAttempts += 1;
    this.mic?.stop();
    this.mic = undefined;
    if (this.state.microphone !== 'off') this.update({ microphone: 'off' });
  }

  private silenceReply(): void {
    if (this.audioTurnId) this.silenced.add(this.audioTurnId);
    this.player.stop();
  }

  private receive(message: ServerMessage): void {
    if (message.type === 'session.ready') {
      this.update({ phase: 'live', speechToText: message.speechToText });
    } else if (message.type === 'interrupted') {
      this.silenced.add(message.turnId);
      this.player.stop();
    } else if (message.type === 'input.transcript') {
      // recognized speech that was not a backchannel: the caller talked over what is still playing
      this.silenceReply();
    } else if (message.type === 'session.ended') {
      this.update({ phase: 'ended' });
      this.release();
    }
    this.listener.event(message);
  }

  /** The browser's WebSocket, watched for closing (the server ended the call, or the network did). */
  private connect(url: string): WebSocketLike {
    const socket = new WebSocket(url);
    socket.addEventListener('close', () => {
      if (this.state.phase === 'live' || this.state.phase === 'starting') {
        // closed without session.ended: refused (the error says why) or the connection dropped
        this.listener.event({ type: 'disconnected' });
        this.update({ phase: 'ended' });
      }
      this.release();
    });
    return socket as unknown as WebSocketLike;
  }

  private release(): void {
    this.stopMicrophone();
    this.player.stop();
    if (this.released) return;
    this.released = true;
    this.client?.close();
    void this.context.close();
  }

  private update(change: Partial<CallState>): void {
    this.state = { ...this.state, ...change };
    this.listener.state(this.state);
  }
}
