import http from 'node:http';
import { mulaw } from 'alawmulaw';
import twilio from 'twilio';
import { type WebSocket, WebSocketServer } from 'ws';
import { type MessageFromTwilio, parseMessageFromTwilio } from '../../../src/telephony/twilio/media-messages';
import { paramsOfForm, verifyTwilioSignature } from '../../../src/telephony/twilio/signature';
import { connectStreamTwiml } from '../../../src/telephony/twilio/twiml';
import type { TwilioDouble } from '../twilio-double';

/**
 * A minimal stand-in for the platform, for the Twilio double's own tests (test/twilio-double.unit.test.ts):
 * an HTTP handler that checks every request's signature with our signature.ts and with the `twilio`
 * package's `validateRequest`, refuses a bad one (403) and answers the voice webhook with
 * `<Connect><Stream>` TwiML; and a `ws` server that checks the upgrade's signature the same way and
 * keeps each stream's messages, parsed, with their receive times. A test drives what it sends.
 */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The platform's side of one stream: echoes the caller's media back when `echoMedia`;: every message Twilio sent, with its receive time. */
export class PlatformSocket {
  readonly messages: { at: number; message: MessageFromTwilio }[] = [];
  readonly invalid: string[] = [];
  echoMedia = false;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const parsed = parseMessageFromTwilio(data as Buffer);
      if (!parsed.ok) return this.invalid.push(parsed.error.message);
      this.messages.push({ at: performance.now(), message: parsed.message });
      const m = parsed.message;
      if (m.event === 'media' && this.echoMedia)
        this.send({ event: 'media', streamSid: m.streamSid, media: { payload: m.media.payload } });
    });
  }
  of<E extends MessageFromTwilio['event']>(event: E) {
    return this.messages.filter((m) => m.message.event === event) as {
      at: number;
      message: Extract<MessageFromTwilio, { event: E }>;
    }[];
  }
  get streamSid() {
    return this.of('start')[0]!.message.streamSid;
  }
  send(message: object) {
    this.ws.send(JSON.stringify(message));
  }
  play(ms: number, sample = 4000) {
    const pcm = new Int16Array(ms * 8).fill(sample);
    this.send({
      event: 'media',
      streamSid: this.streamSid,
      media: { payload: Buffer.from(mulaw.encode(pcm)).toString('base64') },
    });
  }
}

/** A request to the stand-in, its params and whether its signature held (ours, and the oracle's). */
export type Signed = {
  path: string;
  params: Record<string, string | string[]>;
  ours: boolean;
  oracle: boolean;
};

export async function startStandInPlatform(authToken: string) {
  const requests: Signed[] = [];
  const upgrades: boolean[] = [];
  const sockets: PlatformSocket[] = [];
  let base = '';
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const params = paramsOfForm(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const url = `${base}${req.url}`;
    const signature = req.headers['x-twilio-signature'] as string | undefined;
    const ours = verifyTwilioSignature(authToken, signature, url, params);
    requests.push({
      path: req.url!,
      params,
      ours,
      oracle: twilio.validateRequest(authToken, signature ?? '', url, params),
    });
    if (!ours) return res.writeHead(403).end();
    if (req.url !== '/voice') return res.writeHead(204).end();
    const twiml = connectStreamTwiml(`${base.replace('http', 'ws')}/stream`, {
      token: 'tok-1',
      note: 'a&b "c"',
    });
    res.writeHead(200, { 'content-type': 'text/xml' }).end(twiml);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = `${base.replace('http', 'ws')}${req.url}`;
    const valid = verifyTwilioSignature(
      authToken,
      req.headers['x-twilio-signature'] as string | undefined,
      url,
    );
    upgrades.push(valid);
    if (!valid) return socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => sockets.push(new PlatformSocket(ws)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.ws.terminate();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { base, requests, upgrades, sockets, close };
}

type StandInPlatform = Awaited<ReturnType<typeof startStandInPlatform>>;

/** The double's `Calls.json` for its account. */
export const callsUrl = (carrier: TwilioDouble) =>
  `${carrier.baseUrl}/2010-04-01/Accounts/${carrier.accountSid}/Calls.json`;

/** HTTP basic auth with the double's account SID and `token` (its auth token unless given). */
export const basicAuth = (carrier: TwilioDouble, token = carrier.authToken) =>
  `Basic ${Buffer.from(`${carrier.accountSid}:${token}`).toString('base64')}`;

/** Places a call through the double's REST API, as the platform will: TwiML onto the stand-in's stream. */
export function placeCall(
  carrier: TwilioDouble,
  platform: StandInPlatform,
  events = ['initiated', 'ringing', 'answered', 'completed'],
  authorization = basicAuth(carrier),
) {
  const body = new URLSearchParams({
    To: '+15005550006',
    From: '+15005550001',
    StatusCallback: `${platform.base}/status`,
  });
  body.set('Twiml', connectStreamTwiml(`${platform.base.replace('http', 'ws')}/stream`, { token: 'tok-9' }));
  for (const e of events) body.append('StatusCallbackEvent', e);
  return fetch(callsUrl(carrier), { method: 'POST', headers: { authorization }, body });
}

/** The `CallStatus` of each status callback the stand-in received, in order. */
export const statuses = (platform: StandInPlatform) =>
  platform.requests.filter((r) => r.path === '/status').map((r) => r.params.CallStatus);
