import WebSocket from 'ws';
import { concatSamples } from '../../src/common/pcm';
import { ServerMessage } from '../../src/sessions/stream/protocol';
import { VoiceStreamClient, type WebSocketLike } from '../../src/sessions/stream/voice-stream-client';

/** The stream's URL of a session on a test app (`ws://…`), with `?token=` when given. */
export const streamUrl = (baseUrl: string, sessionId: string, token?: string) =>
  `${baseUrl.replace(/^http/, 'ws')}/api/v2/developers/sessions/${sessionId}/stream${token ? `?token=${encodeURIComponent(token)}` : ''}`;

/** Opens a session's stream as Node does: the `ws` package, with an API key header or a client token. */
export function openStream(
  baseUrl: string,
  sessionId: string,
  auth: { key?: string; token?: string },
): Promise<VoiceStreamClient> {
  return VoiceStreamClient.open({
    url: streamUrl(baseUrl, sessionId, auth.token),
    // every message the server sends must match the protocol
    check: (message) => ServerMessage.parse(message),
    connect: (url) =>
      new WebSocket(url, {
        headers: auth.key ? { authorization: `Bearer ${auth.key}` } : {},
      }) as unknown as WebSocketLike,
  });
}

/** What a refused upgrade answered (the stream never opened): its HTTP status and error body. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: { code: string; error: string }; retryAfter?: string }>(
    (resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.on('open', () => {
        socket.close();
        reject(new Error('the stream opened'));
      });
      socket.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            retryAfter: res.headers['retry-after'],
          }),
        );
      });
      socket.on('error', () => undefined);
    },
  );
}

/** Root mean square of PCM16 samples (0 for silence). */
export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0;
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / pcm.length);
}

/** The types of the messages of one turn, in order (audio headers folded into one entry each run). */
export function typesOf(messages: ServerMessage[], turnId: string): string[] {
  const types = messages.filter((m) => 'turnId' in m && m.turnId === turnId).map((m) => m.type);
  return types.filter((t, i) => i === 0 || t !== types[i - 1]);
}

/** Collects reply audio per turn as it arrives. */
export function audioOf(client: VoiceStreamClient) {
  const byTurn = new Map<string, Int16Array[]>();
  client.onAudio((pcm, _format, turnId) => {
    byTurn.set(turnId, [...(byTurn.get(turnId) ?? []), pcm]);
  });
  return (turnId: string) => {
    const parts = byTurn.get(turnId) ?? [];
    return parts.length === 1 ? parts[0]!.slice() : concatSamples(parts);
  };
}
