import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import type { TelnyxCallPayload } from '../../../src/telephony/telnyx/webhook-events';
import type { LineOptions } from '../twilio-double/line-signal';
import { TelnyxMediaStream } from './media-stream';
import type { PostedWebhook, WebhookSender } from './webhooks';

/** How a callee (an outbound call's) behaves: answers, is busy, never answers, rejects. */
export interface CalleeScript {
  outcome: 'answer' | 'busy' | 'no-answer' | 'reject';
  /** How long it rings before the outcome (ms). */
  ringMs?: number;
  /** The line the stream carries (echo, noise). */
  line?: LineOptions;
}

export interface TelnyxCallSetup {
  direction: 'incoming' | 'outgoing';
  userId: string;
  connectionId: string;
  from: string;
  to: string;
  /** Where the call's webhooks go (the dial's `webhook_url`, else the application's). */
  webhookUrl: string;
  clientState?: string | null;
  streamUrl?: string;
  script: CalleeScript;
}

/**
 * One call on the Telnyx double, as Call Control describes a call's life: `call.initiated`, then
 * `call.answered` (and the media stream to `stream_url`, `streaming.started`) or `call.hangup` with
 * its `hangup_cause`; every webhook signed. `hangUp` is the other party hanging up.
 */
export class TelnyxDoubleCall extends EventEmitter {
  readonly callControlId = `v3:${randomBytes(24).toString('base64url')}`;
  readonly callLegId = randomUUID();
  readonly callSessionId = randomUUID();
  readonly webhooks: PostedWebhook[] = [];
  /** The commands the call was given (`answer`, `hangup`, `reject`), with their bodies. */
  readonly commands: { action: string; body: Record<string, unknown> }[] = [];
  answeredAt?: number;
  hangupCause?: string;
  stream?: TelnyxMediaStream;
  /** Resolves with the hang-up cause once the call has ended. */
  readonly ended: Promise<string>;
  private resolveEnded!: (cause: string) => void;

  constructor(
    readonly setup: TelnyxCallSetup,
    private readonly sender: WebhookSender,
  ) {
    super();
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** The call as a webhook's `payload` describes it. */
  payload(extra: Partial<TelnyxCallPayload> = {}): TelnyxCallPayload {
    const { direction, connectionId, from, to, clientState } = this.setup;
    const state = this.hangupCause
      ? 'hangup'
      : this.answeredAt
        ? 'answered'
        : direction === 'incoming'
          ? 'parked'
          : 'bridging';
    return {
      call_control_id: this.callControlId,
      call_leg_id: this.callLegId,
      call_session_id: this.callSessionId,
      connection_id: connectionId,
      from,
      to,
      direction,
      state,
      client_state: clientState ?? null,
      ...extra,
    };
  }

  /** An outbound call: `call.initiated`, then the callee's script. */
  async placeOutbound(): Promise<void> {
    await this.post('call.initiated');
    const { outcome, ringMs = 100 } = this.setup.script;
    await new Promise((r) => setTimeout(r, ringMs));
    if (this.hangupCause) return;
    if (outcome === 'answer') return this.answer();
    await this.end({ busy: 'user_busy', 'no-answer': 'timeout', reject: 'call_rejected' }[outcome]);
  }

  /** An inbound call: `call.initiated` (incoming) to the application's webhook URL; resolves with its answer. */
  ringInbound(): Promise<PostedWebhook> {
    return this.post('call.initiated');
  }

  /** A command from the platform; answers the HTTP status and error to give back. */
  command(action: string, body: Record<string, unknown>): { status: number; error?: string } {
    const repeated =
      body.command_id !== undefined && this.commands.some((c) => c.body.command_id === body.command_id);
    this.commands.push({ action, body });
    if (repeated) return { status: 200 };
    if (this.hangupCause) return { status: 422, error: 'Call has already ended' };
    if (action === 'answer') {
      if (this.answeredAt) return { status: 422, error: 'Call has already been answered' };
      if (typeof body.client_state === 'string') this.setup.clientState = body.client_state;
      if (typeof body.stream_url === 'string') this.setup.streamUrl = body.stream_url;
      if (typeof body.webhook_url === 'string') this.setup.webhookUrl = body.webhook_url;
      setImmediate(() => void this.answer());
    } else if (action === 'hangup') {
      setImmediate(() => void this.end(this.answeredAt ? 'normal_clearing' : 'originator_cancel', 'caller'));
    } else if (action === 'reject') setImmediate(() => void this.end('call_rejected', 'callee'));
    return { status: 200 };
  }

  /** The other party hangs up (the caller of an inbound call, the callee of an outbound one). */
  hangUp(): Promise<void> {
    return this.end('normal_clearing', this.setup.direction === 'incoming' ? 'caller' : 'callee');
  }

  /** Resolves with the media stream once it is open. */
  async waitForStream(timeoutMs = 10_000): Promise<TelnyxMediaStream> {
    if (this.stream) return this.stream;
    const timer = setTimeout(() => this.emit('error', new Error('no media stream')), timeoutMs);
    try {
      await once(this, 'stream');
    } finally {
      clearTimeout(timer);
    }
    return this.stream!;
  }

  private async answer(): Promise<void> {
    this.answeredAt = Date.now();
    const answered = this.post('call.answered');
    const { streamUrl, userId, from, to, clientState, script } = this.setup;
    if (streamUrl) {
      const stream = new TelnyxMediaStream({
        ...script.line,
        url: streamUrl,
        userId,
        callControlId: this.callControlId,
        callSessionId: this.callSessionId,
        from,
        to,
        clientState,
      });
      this.stream = stream;
      await stream.open();
      this.emit('stream', stream);
      await this.post('streaming.started');
    }
    await answered;
  }

  private async end(cause: string, source = 'callee'): Promise<void> {
    if (this.hangupCause) return;
    this.hangupCause = cause;
    if (this.stream) {
      await this.stream.stop();
      await this.post('streaming.stopped');
    }
    await this.post('call.hangup', { hangup_cause: cause, hangup_source: source });
    this.resolveEnded(cause);
  }

  private async post(eventType: string, extra: Partial<TelnyxCallPayload> = {}): Promise<PostedWebhook> {
    const delivery = this.sender.post(this.setup.webhookUrl, eventType, this.payload(extra));
    // recorded as sent, in order (the sender records it before it awaits anything)
    this.webhooks.push(this.sender.posted.at(-1)!);
    const webhook = await delivery;
    this.emit('webhook', webhook);
    return webhook;
  }
}
