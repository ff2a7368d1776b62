import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { DoubleCall } from './twilio-double/call';
import type { CalleeScript, StatusCallbackEvent } from './twilio-double/call-requests';

export type { DoubleCall } from './twilio-double/call';
export type { CalleeScript, PostedCallback } from './twilio-double/call-requests';
export type { TwilioMediaStream } from './twilio-double/media-stream';

/** A REST request as the double received it. */
export interface TwilioRestRequest {
  method: string;
  path: string;
  /** Whether its basic auth was the account's SID and auth token. */
  authorized: boolean;
  params: Record<string, string | string[]>;
}

const EVENTS: readonly StatusCallbackEvent[] = ['initiated', 'ringing', 'answered', 'completed'];
const CALLS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/;

/** Twilio's REST error body (https://www.twilio.com/docs/usage/twilios-response). */
function restError(res: http.ServerResponse, status: number, code: number, message: string): void {
  const authenticate = status === 401 ? { 'www-authenticate': 'Basic realm="Twilio API"' } : {};
  const body = { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
  res.writeHead(status, { 'content-type': 'application/json', ...authenticate }).end(JSON.stringify(body));
}

async function readParams(req: http.IncomingMessage): Promise<Record<string, string | string[]>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  const params: Record<string, string | string[]> = {};
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    params[name] = values.length === 1 ? values[0]! : [...values];
  }
  return params;
}

const listOf = (value: string | string[] | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * A local double of Twilio for the platform's tests, a real HTTP and WebSocket peer that behaves as
 * Twilio's documentation says. Its REST API (`baseUrl`, for TWILIO_API_BASE_URL) takes
 * `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` under HTTP basic auth (the account SID and
 * auth token; 401 otherwise) and answers 201 with a `CA…` call resource, `queued`; the call then
 * rings and goes as the callee's script says (`script`), posting the signed status callbacks asked
 * for, and once answered follows its TwiML onto the media stream (see DoubleCall and
 * TwilioMediaStream). `POST …/Calls/{Sid}.json` with `Status=completed` (or `canceled`) hangs up.
 * `dial` places an inbound call: the signed voice webhook, then its TwiML answer. Signatures come
 * from the official `twilio` package.
 */
export class TwilioDouble {
  readonly accountSid: string;
  readonly authToken: string;
  /** The REST API's base URL (`http://127.0.0.1:…`), in place of `https://api.twilio.com`. */
  baseUrl = '';
  /** Every call, outbound and inbound, in the order they were placed. */
  readonly calls: DoubleCall[] = [];
  readonly requests: TwilioRestRequest[] = [];
  private readonly scripts = new Map<string | undefined, CalleeScript[]>([
    [undefined, [{ outcome: 'answer' }]],
  ]);
  /** Calls placed so far to each number (which of its scripts the next one follows). */
  private readonly placedTo = new Map<string, number>();
  private readonly created = new EventEmitter();
  private readonly basicAuth: string;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  constructor(options: { accountSid?: string; authToken?: string } = {}) {
    this.accountSid = options.accountSid ?? `AC${randomBytes(16).toString('hex')}`;
    this.authToken = options.authToken ?? randomBytes(16).toString('hex');
    this.basicAuth = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /**
   * How the next calls' callees behave: calls to `to`, or every call when `to` is left out. A list
   * scripts successive calls to that number, the last one repeated (busy, then answered).
   */
  script(script: CalleeScript | CalleeScript[], to?: string): void {
    this.scripts.set(to, Array.isArray(script) ? script : [script]);
  }

  /** The script of the next call to `to`. */
  private nextScript(to: string): CalleeScript {
    const scripts = this.scripts.get(to) ?? this.scripts.get(undefined)!;
    const placed = this.placedTo.get(to) ?? 0;
    this.placedTo.set(to, placed + 1);
    return scripts[Math.min(placed, scripts.length - 1)]!;
  }

  /** The call at `index` (or the first that `matches`) once it exists. */
  async waitForCall(
    which: number | ((call: DoubleCall) => boolean) = 0,
    timeoutMs = 10_000,
  ): Promise<DoubleCall> {
    const find = () => (typeof which === 'number' ? this.calls[which] : this.calls.find(which));
    const deadline = Date.now() + timeoutMs;
    while (!find()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no such call on the Twilio double after ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([once(this.created, 'call'), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return find()!;
  }

  /**
   * An inbound call from `from` to `to`: posts the signed voice webhook to `inboundUrl` and resolves
   * once it answered (`webhookResponse`); an answer of TwiML is then followed as for an outbound call.
   * With `statusCallback` (the number's, set in Twilio's console), `completed` is posted there.
   */
  async dial(
    inboundUrl: string,
    call: { from: string; to: string; statusCallback?: string; script?: Omit<CalleeScript, 'outcome'> },
  ): Promise<DoubleCall> {
    const inbound = new DoubleCall({
      accountSid: this.accountSid,
      authToken: this.authToken,
      direction: 'inbound',
      from: call.from,
      to: call.to,
      statusCallback: call.statusCallback,
      statusCallbackEvents: ['completed'],
      statusCallbackMethod: 'POST',
      script: { ...call.script, outcome: 'answer' },
    });
    this.addCall(inbound);
    const answered = once(inbound, 'webhook');
    void inbound.ringInbound(inboundUrl);
    await answered;
    return inbound;
  }

  /** Ends every call (their streams get `stop`) and closes the REST API. */
  async close(): Promise<void> {
    await Promise.all(this.calls.map((c) => (c.endedAt ? undefined : c.hangUp())));
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private addCall(call: DoubleCall): void {
    this.calls.push(call);
    this.created.emit('call', call);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    const params = await readParams(req);
    const authorized = req.headers.authorization === this.basicAuth;
    this.requests.push({ method: req.method ?? '', path, authorized, params });
    const match = CALLS_PATH.exec(path);
    if (!match) return restError(res, 404, 20404, `The requested resource ${path} was not found`);
    if (!authorized || match[1] !== this.accountSid) return restError(res, 401, 20003, 'Authenticate');
    const sid = match[2];
    if (req.method === 'POST' && !sid) return this.createCall(res, params);
    const call = sid ? this.calls.find((c) => c.sid === sid) : undefined;
    if (!call) return restError(res, 404, 20404, `The requested resource ${path} was not found`);
    if (req.method === 'POST') return this.updateCall(res, call, params);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(call.resource()));
  }

  private createCall(res: http.ServerResponse, params: Record<string, string | string[]>) {
    const [to, from, twiml, url] = [one(params.To), one(params.From), one(params.Twiml), one(params.Url)];
    if (!to) return restError(res, 400, 21201, "No 'To' number is specified");
    if (!from) return restError(res, 400, 21213, "No 'From' number is specified");
    if (!twiml && !url) return restError(res, 400, 21205, 'Either Url or Twiml is required');
    const script = this.nextScript(to);
    if (script.outcome === 'refuse')
      return restError(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const requested = listOf(params.StatusCallbackEvent).flatMap((e) => e.split(/[\s,]+/));
    const call = new DoubleCall({
      accountSid: this.accountSid,
      authToken: this.authToken,
      direction: 'outbound-api',
      from,
      to,
      twiml,
      url,
      statusCallback: one(params.StatusCallback),
      // Twilio: with no StatusCallbackEvent, only `completed` is posted
      statusCallbackEvents: requested.length ? EVENTS.filter((e) => requested.includes(e)) : ['completed'],
      statusCallbackMethod: one(params.StatusCallbackMethod)?.toUpperCase() === 'GET' ? 'GET' : 'POST',
      asyncAmdStatusCallback:
        one(params.MachineDetection) && one(params.AsyncAmd) === 'true'
          ? one(params.AsyncAmdStatusCallback)
          : undefined,
      script,
    });
    this.addCall(call);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(call.resource()));
    setImmediate(() => void call.placeOutbound());
  }

  private updateCall(res: http.ServerResponse, call: DoubleCall, params: Record<string, string | string[]>) {
    const status = one(params.Status);
    if (status !== undefined && status !== 'completed' && status !== 'canceled')
      return restError(res, 400, 21218, `Invalid Status: ${status}`);
    const twiml = one(params.Twiml);
    // Twilio: a call not in progress cannot be redirected (21220)
    if (twiml !== undefined && call.status !== 'in-progress')
      return restError(res, 400, 21220, 'Call is not in-progress. Cannot redirect.');
    if (status) call.endByApi(status);
    else if (twiml !== undefined) void call.replaceTwiml(twiml);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(call.resource()));
  }
}

/** Starts a Twilio double on 127.0.0.1 (a port of its own); a random account SID and token unless given. */
export const startTwilioDouble = (options: { accountSid?: string; authToken?: string } = {}) =>
  new TwilioDouble(options).listen();
