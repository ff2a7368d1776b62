import { z } from 'zod';

/** A delivery sent down a `vp listen` socket: what the CLI POSTs to its local URL, byte for byte. */
export interface ListenerDelivery {
  type: 'delivery';
  deliveryId: string;
  attempt: number;
  eventId: string;
  eventType: string;
  headers: Record<string, string>;
  body: string;
}

/** The CLI's answer: the local server's status and answer, or why it could not be reached. */
export const ListenerAnswer = z.strictObject({
  type: z.literal('delivery.answer'),
  deliveryId: z.string().max(64),
  attempt: z.number().int().min(1).max(1000),
  status: z.number().int().min(100).max(599).optional(),
  latencyMs: z.number().min(0).max(3_600_000).optional(),
  body: z.string().max(65_536).optional(),
  error: z.string().max(2_000).optional(),
});
export type ListenerAnswer = z.infer<typeof ListenerAnswer>;

/** How forwarding went, as an attempt records it (the shape of an HTTP attempt's result). */
export interface ForwardResult {
  statusCode?: number;
  latencyMs: number;
  error?: string;
  responseBody?: string;
}

/** One connected CLI: sends text down its socket; told when a newer `vp listen` took over. */
export interface ListenerConnection {
  id: string;
  send(text: string): void;
  replaced(): void;
}

interface Waiting {
  connectionId: string;
  resolve(result: ForwardResult): void;
}

/** The error of an attempt whose listener is not connected to the process that runs it. */
export const LISTENER_NOT_CONNECTED = 'The listener (vp listen) is not connected';

/**
 * The `vp listen` sockets this process holds, by webhook id, and the deliveries waiting for their
 * answer. A delivery's attempt runs in the process holding the socket (its listener task queue);
 * elsewhere, and after the socket closed, forwarding fails at once.
 */
export class WebhookListeners {
  private readonly connections = new Map<string, ListenerConnection>();
  private readonly waiting = new Map<string, Waiting>();

  get size(): number {
    return this.connections.size;
  }

  attach(webhookId: string, connection: ListenerConnection): void {
    const previous = this.connections.get(webhookId);
    this.connections.set(webhookId, connection);
    if (!previous || previous.id === connection.id) return;
    this.failWaiting(previous.id, 'The listener was replaced by another vp listen');
    previous.replaced();
  }

  /** Forgets the connection (if it is still the webhook's); its deliveries under way fail. */
  detach(webhookId: string, connectionId: string): void {
    if (this.connections.get(webhookId)?.id === connectionId) this.connections.delete(webhookId);
    this.failWaiting(connectionId, 'The listener disconnected before answering');
  }

  /** Takes a CLI's answer on `connectionId`; false when nothing waits for it there. */
  answer(connectionId: string, answer: ListenerAnswer): boolean {
    const key = `${answer.deliveryId}:${answer.attempt}`;
    const waiting = this.waiting.get(key);
    if (!waiting || waiting.connectionId !== connectionId) return false;
    this.waiting.delete(key);
    const status = answer.status;
    const latencyMs = Math.round(answer.latencyMs ?? 0);
    if (status === undefined) {
      waiting.resolve({ latencyMs, error: `Forwarding failed: ${answer.error ?? 'no answer'}` });
      return true;
    }
    const error = status >= 200 && status < 300 ? undefined : `Local server answered ${status}`;
    waiting.resolve({ statusCode: status, latencyMs, error, responseBody: answer.body });
    return true;
  }

  /** Sends the delivery down the webhook's socket and waits for the CLI's answer, up to `timeoutMs`. */
  forward(webhookId: string, delivery: ListenerDelivery, timeoutMs: number): Promise<ForwardResult> {
    const connection = this.connections.get(webhookId);
    if (!connection) return Promise.resolve({ latencyMs: 0, error: LISTENER_NOT_CONNECTED });
    const key = `${delivery.deliveryId}:${delivery.attempt}`;
    const started = performance.now();
    return new Promise<ForwardResult>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        resolve({
          latencyMs: timeoutMs,
          error: `Timed out: no answer from vp listen within ${timeoutMs} ms`,
        });
      }, timeoutMs);
      this.waiting.set(key, {
        connectionId: connection.id,
        resolve: (result) => {
          clearTimeout(timer);
          // the CLI's own measure of the local request, else the whole round trip
          resolve({ ...result, latencyMs: result.latencyMs || Math.round(performance.now() - started) });
        },
      });
      connection.send(JSON.stringify(delivery));
    });
  }

  private failWaiting(connectionId: string, error: string): void {
    for (const [key, waiting] of this.waiting) {
      if (waiting.connectionId !== connectionId) continue;
      this.waiting.delete(key);
      waiting.resolve({ latencyMs: 0, error });
    }
  }
}
