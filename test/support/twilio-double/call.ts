import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  type CallSetup,
  type CallStatus,
  type PostedCallback,
  postCallback,
  requestTwiml,
  type StatusCallbackEvent,
  signatureFor,
} from './call-requests';
import { runDial } from './dial';
import { TwilioMediaStream } from './media-stream';
import { readTwiml } from './twiml-reader';

const rfc2822 = (ms: number) => new Date(ms).toUTCString().replace('GMT', '+0000');

/**
 * One call on the carrier double, inbound or outbound, through Twilio's call states: it rings,
 * is answered (or busy, unanswered, failed), follows the TwiML (`<Say>` is recorded, `<Connect><Stream>`
 * opens the media stream, `<Hangup/>` or the document's end hangs up) and ends; each state change
 * the platform asked for is posted to its `StatusCallback`, form-encoded and signed by the `twilio`
 * package as Twilio signs it. Events: `stream` (the stream opened or was refused), `status` (a new
 * status), `callback` (a status callback posted), `webhook` (the voice webhook answered).
 */
export class DoubleCall extends EventEmitter {
  readonly sid = `CA${randomBytes(16).toString('hex')}`;
  readonly createdAt = Date.now();
  status: CallStatus = 'queued';
  answeredAt?: number;
  endedAt?: number;
  readonly callbacks: PostedCallback[] = [];
  readonly twiml: string[] = [];
  /** What `<Say>` said to the caller. */
  readonly said: string[] = [];
  stream?: TwilioMediaStream;
  /** The inbound voice webhook's answer (inbound calls). */
  webhookResponse?: { status: number; body: string };
  readonly ended: Promise<CallStatus>;
  private resolveEnded!: (status: CallStatus) => void;
  private hangUpRequested = false;
  /** The ringing's timer, cut short when the call ends while it rings. */
  private ringing?: { timer: NodeJS.Timeout; resolve: () => void };
  /** The callee's hang-up after `talkMs`. */
  private talking?: NodeJS.Timeout;
  /** A document a call update sent, to follow once the verb under way has stopped. */
  private replacedBy?: string;
  /** Ends the `<Dial>` under way (either side hung up). */
  private bridged?: () => void;
  /** The asynchronous AMD verdicts posted, with the platform's answers. */
  readonly amdCallbacks: PostedCallback[] = [];
  /** Where `<Dial>` put the caller through (a transfer), and the caller id it showed. */
  readonly dialed: { destination: string; callerId?: string; at: number }[] = [];
  /** What warm transfers' whispers said to the dialled party. */
  readonly whispers: string[] = [];
  /** Every media stream the call opened, in order (a caller back from a transfer opens another). */
  readonly streams: TwilioMediaStream[] = [];
  /** The status callbacks' deliveries, one after another, apart from the call's own progress. */
  private deliveries: Promise<unknown> = Promise.resolve();

  constructor(readonly setup: CallSetup) {
    super();
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  get durationS(): number {
    return this.answeredAt && this.endedAt ? Math.round((this.endedAt - this.answeredAt) / 1000) : 0;
  }

  /** Twilio's Call resource (`/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json`) for this call. */
  resource() {
    const { accountSid, from, to, direction } = this.setup;
    const uri = `/2010-04-01/Accounts/${accountSid}/Calls/${this.sid}.json`;
    return {
      sid: this.sid,
      account_sid: accountSid,
      api_version: '2010-04-01',
      date_created: rfc2822(this.createdAt),
      date_updated: rfc2822(this.endedAt ?? this.answeredAt ?? this.createdAt),
      direction,
      from,
      from_formatted: from,
      to,
      to_formatted: to,
      status: this.status,
      start_time: this.answeredAt ? rfc2822(this.answeredAt) : null,
      end_time: this.endedAt ? rfc2822(this.endedAt) : null,
      duration: this.endedAt ? String(this.durationS) : null,
      parent_call_sid: null,
      phone_number_sid: null,
      answered_by: null,
      price: null,
      price_unit: 'USD',
      queue_time: '0',
      uri,
      subresource_uris: { recordings: uri.replace('.json', '/Recordings.json') },
    };
  }

  /** Places an outbound call: initiated, ringing, then the callee's outcome. */
  async placeOutbound(): Promise<void> {
    void this.statusEvent('initiated');
    this.setStatus('ringing');
    void this.statusEvent('ringing');
    await new Promise<void>((resolve) => {
      this.ringing = { timer: setTimeout(resolve, this.setup.script.ringMs ?? 100), resolve };
    });
    // hung up while it rang: ended already (`canceled`)
    if (this.endedAt || this.hangUpRequested) return this.finish('canceled');
    const { outcome } = this.setup.script;
    if (outcome === 'refuse') return this.finish('failed'); // never placed: the REST API refused it
    if (outcome !== 'answer') return this.finish(outcome);
    await this.answer(async () => this.setup.twiml ?? (await this.fetchTwiml(this.setup.url!)).body);
  }

  /** Rings an inbound call: the voice webhook is posted to `url`, and its TwiML answer is followed. */
  async ringInbound(url: string): Promise<void> {
    this.setStatus('ringing');
    const answer = await this.fetchTwiml(url);
    this.webhookResponse = answer;
    this.emit('webhook', answer);
    if (answer.status !== 200 || !answer.body.includes('<Response')) return this.finish('failed');
    await this.answer(async () => answer.body);
  }

  /** The callee (or caller) hangs up: `stop` on the stream, then the call completes. */
  async hangUp(): Promise<void> {
    this.hangUpRequested = true;
    this.bridged?.();
    if (this.stream) await this.stream.stop();
    else await this.finish(this.status === 'in-progress' ? 'completed' : 'canceled');
    await this.ended;
  }

  /**
   * The REST API's `Status=completed|canceled`: whether the call was live to end. `completed` ends
   * an answered call (`stop` on its stream) and, as `canceled` does, one still queued or ringing
   * (its status `canceled`); `canceled` leaves an answered call alone, as Twilio does.
   */
  endByApi(requested: 'completed' | 'canceled'): boolean {
    const live = this.status === 'queued' || this.status === 'ringing' || this.status === 'in-progress';
    // `canceled` ends a call only before it is answered (Twilio: it does not affect an in-progress call)
    if (!live || (requested === 'canceled' && this.status === 'in-progress')) return false;
    this.hangUpRequested = true;
    this.bridged?.();
    if (this.status === 'in-progress' && this.stream) void this.stream.stop();
    else void this.finish(this.status === 'in-progress' ? 'completed' : 'canceled');
    return true;
  }

  /** Posts the held status callbacks (`callbacks: 'hold'`), in `order` (indexes into `callbacks`). */
  async deliverHeldCallbacks(order = this.callbacks.map((_, i) => i)): Promise<void> {
    for (const index of order) await this.post(this.callbacks[index]!);
  }

  /** Posts a recorded status callback again, byte for byte (a duplicate, as Twilio may retry one). */
  replayCallback(index: number): Promise<number | undefined> {
    return this.post({ ...this.callbacks[index]! });
  }

  /** Resolves with the media stream once it has opened (or was refused). */
  waitForStream(timeoutMs = 5000): Promise<TwilioMediaStream> {
    if (this.stream) return Promise.resolve(this.stream);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`call ${this.sid}: no stream after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.once('stream', (stream: TwilioMediaStream) => {
        clearTimeout(timer);
        resolve(stream);
      });
    });
  }

  private async answer(twimlOf: () => Promise<string>): Promise<void> {
    this.answeredAt = Date.now();
    this.setStatus('in-progress');
    void this.statusEvent('answered');
    const { talkMs, media } = this.setup.script;
    if (talkMs !== undefined) this.talking = setTimeout(() => void this.hangUp(), talkMs);
    this.detectMachine();
    // no stream: the call stays up until the callee or the API hangs up (finish then)
    if (media === 'none') return;
    let document: string | undefined = await twimlOf();
    while (document !== undefined) {
      this.twiml.push(document);
      document = await this.follow(document);
    }
    await this.finish('completed');
  }

  /**
   * Follows a TwiML document's verbs until its end or a `<Hangup/>`; a document the API sent meanwhile
   * (a call update with `Twiml`) interrupts it and is answered, to be followed next.
   */
  private async follow(document: string): Promise<string | undefined> {
    for (const verb of readTwiml(document)) {
      if (this.hangUpRequested || verb.verb === 'Hangup') return undefined;
      if (verb.verb === 'Say') this.said.push(verb.text);
      else if (verb.verb === 'Dial') {
        const next = await this.dial(verb);
        // a Dial with an action goes on with the action's answer, never with the rest of its document
        if (verb.action) return this.replacedBy ?? next;
      } else await this.runStream(verb.url, verb.parameters);
      const next = this.replacedBy;
      this.replacedBy = undefined;
      if (next !== undefined) return next;
    }
    return undefined;
  }

  /**
   * A call update with new TwiML (Twilio: "the call immediately executes the new TwiML"): the verb
   * under way stops (a media stream gets `stop`), and the call follows the new document.
   */
  async replaceTwiml(document: string): Promise<void> {
    readTwiml(document);
    this.replacedBy = document;
    await this.stream?.stop();
  }

  /**
   * Asynchronous AMD (https://www.twilio.com/docs/voice/answering-machine-detection): the call goes
   * on meanwhile; the verdict (`AnsweredBy`) is posted, signed, `amdMs` after the answer.
   */
  private detectMachine(): void {
    const url = this.setup.asyncAmdStatusCallback;
    if (!url) return;
    const { answeredBy = 'human', amdMs = 1500 } = this.setup.script;
    setTimeout(() => {
      if (this.endedAt) return;
      const params = {
        AccountSid: this.setup.accountSid,
        CallSid: this.sid,
        AnsweredBy: answeredBy,
        MachineDetectionDuration: String(amdMs),
      };
      const callback: PostedCallback = {
        event: 'answered',
        url,
        method: 'POST',
        params,
        signature: signatureFor(this.setup, url, params),
      };
      void postCallback(callback).then((status) => {
        this.amdCallbacks.push({ ...callback, status });
      });
    }, amdMs).unref();
  }

  /**
   * `<Dial>`: the caller is put through to `destination` as the script's `dialed` says (test/support/
   * twilio-double/dial.ts); answers the action's document when the Dial has one.
   */
  private async dial(verb: Parameters<typeof runDial>[1]): Promise<string | undefined> {
    const { destination, callerId } = verb;
    this.dialed.push({ destination, callerId, at: Date.now() });
    this.emit('dial', destination);
    return runDial(
      {
        setup: this.setup,
        sid: this.sid,
        params: () => this.callParams(),
        hungUp: () => this.hangUpRequested,
        onBridgeEnd: (end) => {
          this.bridged = end;
        },
        whispered: (text) => this.whispers.push(text),
      },
      verb,
      this.setup.script.dialed ?? { outcome: 'answer' },
    );
  }

  private async runStream(url: string, customParameters: Record<string, string>): Promise<void> {
    if (this.endedAt) return;
    const { accountSid, authToken, script } = this.setup;
    const stream = new TwilioMediaStream({
      url,
      accountSid,
      authToken,
      callSid: this.sid,
      customParameters,
      signature: script.signature,
      ...script.line,
    });
    await stream.open();
    this.stream = stream;
    this.streams.push(stream);
    this.emit('stream', stream);
    // hung up while the stream was opening
    if (this.endedAt) await stream.stop();
    await stream.ended;
  }

  private async finish(status: CallStatus): Promise<void> {
    if (this.endedAt) return;
    this.endedAt = Date.now();
    clearTimeout(this.talking);
    if (this.ringing) {
      clearTimeout(this.ringing.timer);
      this.ringing.resolve();
    }
    this.setStatus(status);
    await this.statusEvent('completed');
    this.resolveEnded(status);
  }

  private setStatus(status: CallStatus): void {
    this.status = status;
    this.emit('status', status);
  }

  /** The parameters Twilio sends about this call in its requests (webhook and status callbacks). */
  private callParams(): Record<string, string> {
    const { accountSid, from, to, direction } = this.setup;
    return {
      AccountSid: accountSid,
      ApiVersion: '2010-04-01',
      CallSid: this.sid,
      CallStatus: this.status,
      Called: to,
      Caller: from,
      Direction: direction,
      From: from,
      To: to,
    };
  }

  private async post(callback: PostedCallback): Promise<number | undefined> {
    callback.status = await postCallback(callback);
    this.emit('callback', callback);
    return callback.status;
  }

  /** Asks `url` what to do (the call's parameters, signed), as Twilio asks a voice webhook. */
  private fetchTwiml(url: string): Promise<{ status: number; body: string }> {
    const params = this.callParams();
    return requestTwiml(url, params, signatureFor(this.setup, url, params));
  }

  /**
   * Posts a status event's callback: asynchronously, as Twilio makes it (the call goes on without
   * waiting for the answer), one call's callbacks in order; resolves once this one was delivered.
   */
  private async statusEvent(event: StatusCallbackEvent): Promise<void> {
    const { statusCallback, statusCallbackEvents, statusCallbackMethod, script } = this.setup;
    if (!statusCallback || !statusCallbackEvents.includes(event)) return;
    const params: Record<string, string> = {
      ...this.callParams(),
      // the call's resource stays `queued`; the initiated event's callback says `initiated`
      ...(event === 'initiated' ? { CallStatus: 'initiated' } : {}),
      CallbackSource: 'call-progress-events',
      SequenceNumber: String(this.callbacks.length),
      Timestamp: rfc2822(Date.now()),
      ...(event === 'completed'
        ? { CallDuration: String(this.durationS), Duration: String(Math.ceil(this.durationS / 60)) }
        : {}),
    };
    const url =
      statusCallbackMethod === 'GET'
        ? `${statusCallback}${statusCallback.includes('?') ? '&' : '?'}${new URLSearchParams(params)}`
        : statusCallback;
    const signed = statusCallbackMethod === 'GET' ? {} : params;
    const callback: PostedCallback = {
      event,
      url,
      method: statusCallbackMethod,
      params,
      signature: signatureFor(this.setup, url, signed),
    };
    this.callbacks.push(callback);
    if (script.callbacks === 'hold') return;
    const delivered = this.deliveries.then(() => this.post(callback));
    this.deliveries = delivered.catch(() => undefined);
    await delivered;
  }
}
