import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { type CalleeScript, TelnyxDoubleCall } from './telnyx-double/call';
import { telnyxKeyPair, WebhookSender } from './telnyx-double/webhooks';

export type { CalleeScript, TelnyxDoubleCall } from './telnyx-double/call';
export type { TelnyxMediaStream } from './telnyx-double/media-stream';
export type { PostedWebhook, SigningMode } from './telnyx-double/webhooks';

/** A REST request as the double received it. */
export interface TelnyxRestRequest {
  method: string;
  path: string;
  /** Whether it carried the account's API key as a Bearer token. */
  authorized: boolean;
  body: Record<string, unknown>;
}

const COMMAND_PATH = /^\/v2\/calls\/([^/]+)\/actions\/([a-z_]+)$/;

/** Telnyx's error body: `{ errors: [{ code, title, detail }] }`. */
function restError(res: http.ServerResponse, status: number, code: string, title: string, detail = title) {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ errors: [{ code, title, detail }] }));
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A local double of Telnyx for the platform's tests, a real HTTP and WebSocket peer that behaves as
 * Telnyx's documentation says. Its Call Control API (`baseUrl`, for TELNYX_API_BASE_URL) takes
 * `POST /v2/calls` under Bearer auth with the account's API key (401 otherwise) on the account's
 * connection (422 for another), answers the call's `call_control_id`, and then plays the callee's
 * script (`script`), posting each event to the dial's `webhook_url`, signed with the account's
 * Ed25519 key; an answered call opens its media stream to the `stream_url`. `POST
 * /v2/calls/{id}/actions/{answer,hangup,reject}` command a call (a repeated `command_id` is
 * ignored; a call that ended is a 422). `dial` places an inbound call: `call.initiated` to the
 * Call Control application's webhook URL, then whatever the platform commands.
 */
export class TelnyxDouble {
  readonly apiKey = `KEY${randomBytes(16).toString('hex')}`;
  readonly connectionId = String(1_000_000 + Math.floor(Math.random() * 1_000_000));
  readonly userId = randomUUID();
  readonly publicKey: string;
  readonly webhooks: WebhookSender;
  baseUrl = '';
  readonly calls: TelnyxDoubleCall[] = [];
  readonly requests: TelnyxRestRequest[] = [];
  private readonly scripts = new Map<string | undefined, CalleeScript>([[undefined, { outcome: 'answer' }]]);
  private readonly created = new EventEmitter();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  constructor() {
    const keys = telnyxKeyPair();
    this.publicKey = keys.publicKeyBase64;
    this.webhooks = new WebhookSender(keys.privateKey);
  }

  /** The credentials a Telnyx number of this account has on the platform. */
  get credentials() {
    return { apiKey: this.apiKey, publicKey: this.publicKey, connectionId: this.connectionId };
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** How the next outbound calls' callees behave: calls to `to`, or every call when `to` is left out. */
  script(script: CalleeScript, to?: string): void {
    this.scripts.set(to, script);
  }

  /** The call at `index` (or the first that `matches`) once it exists. */
  async waitForCall(which: number | ((call: TelnyxDoubleCall) => boolean) = 0, timeoutMs = 10_000) {
    const find = () => (typeof which === 'number' ? this.calls[which] : this.calls.find(which));
    const deadline = Date.now() + timeoutMs;
    while (!find()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no such call on the Telnyx double after ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([once(this.created, 'call'), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return find()!;
  }

  /** An inbound call from `from` to `to`: `call.initiated` posted to `webhookUrl` (the application's); resolves once answered. */
  async dial(webhookUrl: string, call: { from: string; to: string; script?: Omit<CalleeScript, 'outcome'> }) {
    const inbound = new TelnyxDoubleCall(
      {
        direction: 'incoming',
        userId: this.userId,
        connectionId: this.connectionId,
        from: call.from,
        to: call.to,
        webhookUrl,
        script: { ...call.script, outcome: 'answer' },
      },
      this.webhooks,
    );
    this.addCall(inbound);
    await inbound.ringInbound();
    return inbound;
  }

  /** Ends every call still up (their streams stop) and closes the API. */
  async close(): Promise<void> {
    await Promise.all(this.calls.map((c) => (c.hangupCause ? undefined : c.hangUp())));
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private addCall(call: TelnyxDoubleCall): void {
    this.calls.push(call);
    this.created.emit('call', call);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    const body = await readJson(req);
    const authorized = req.headers.authorization === `Bearer ${this.apiKey}`;
    this.requests.push({ method: req.method ?? '', path, authorized, body: body ?? {} });
    if (!authorized) return restError(res, 401, '10009', 'Authentication failed');
    if (!body) return restError(res, 400, '10015', 'Bad Request', 'The request body is not JSON');
    if (req.method === 'POST' && path === '/v2/calls') return this.createCall(res, body);
    const match = COMMAND_PATH.exec(path);
    const call = match && this.calls.find((c) => c.callControlId === decodeURIComponent(match[1]!));
    if (req.method !== 'POST' || !match || !call) return restError(res, 404, '10005', 'Resource not found');
    const { status, error } = call.command(match[2]!, body);
    if (error) return restError(res, status, '90018', error);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: { result: 'ok' } }));
  }

  private createCall(res: http.ServerResponse, body: Record<string, unknown>) {
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const [to, from, connectionId] = [text('to'), text('from'), text('connection_id')];
    if (!to || !from) return restError(res, 422, '10032', 'Invalid parameter', 'to and from are required');
    if (connectionId !== this.connectionId) return restError(res, 422, '10010', 'Invalid connection_id');
    const webhookUrl = text('webhook_url');
    if (!webhookUrl)
      return restError(res, 422, '10032', 'Invalid parameter', 'the double needs a webhook_url');
    const call = new TelnyxDoubleCall(
      {
        direction: 'outgoing',
        userId: this.userId,
        connectionId,
        from,
        to,
        webhookUrl,
        clientState: text('client_state'),
        streamUrl: text('stream_url'),
        script: this.scripts.get(to) ?? this.scripts.get(undefined)!,
      },
      this.webhooks,
    );
    this.addCall(call);
    const data = {
      call_control_id: call.callControlId,
      call_leg_id: call.callLegId,
      call_session_id: call.callSessionId,
      is_alive: false,
      record_type: 'call',
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    setImmediate(() => void call.placeOutbound());
  }
}

/** Starts a Telnyx double on 127.0.0.1 (a port of its own), with a fresh API key and key pair. */
export const startTelnyxDouble = () => new TelnyxDouble().listen();
