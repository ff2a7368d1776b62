import { setTimeout as sleep } from 'node:timers/promises';

/** One answer as the client saw it: status 0 is a connection that failed (its API process died). */
export interface SeenAnswer {
  route: string;
  status: number;
  retryAfter: string | null;
  at: number;
}

export interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
}

/**
 * The chaos run's client side: what a load balancer in front of the API processes and a client that
 * retries do together. Requests go round-robin; a connection that fails (the process is gone) is
 * answered status 0 and, for an idempotent request, sent again to the next process under the same
 * Idempotency-Key. Every answer is kept, so the run can check that no 5xx but a 503 with Retry-After
 * ever came back.
 */
export class Balancer {
  readonly answers: SeenAnswer[] = [];
  private next = 0;

  constructor(
    private readonly apis: string[],
    private readonly key: string,
  ) {}

  /** One attempt on the next API process. */
  async send(
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const base = this.apis[this.next++ % this.apis.length]!;
    const label = route.replace(/[a-z]+_[A-Za-z0-9]+/g, ':id');
    try {
      const res = await fetch(`${base}/api/v2/developers${route}`, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(150_000),
      });
      const text = await res.text();
      const retryAfter = res.headers.get('retry-after');
      this.answers.push({ route: `${method} ${label}`, status: res.status, retryAfter, at: Date.now() });
      return { status: res.status, body: text ? JSON.parse(text) : undefined, retryAfter };
    } catch {
      this.answers.push({ route: `${method} ${label}`, status: 0, retryAfter: null, at: Date.now() });
      return { status: 0, body: undefined, retryAfter: null };
    }
  }

  /**
   * An idempotent create sent until it is answered 2xx: again under the same key after a failed
   * connection, a 503 or a 409 for the same key still in progress (waiting as Retry-After says, at
   * most `maxWaitS`). Undefined when it is still not acknowledged after `giveUpMs`; a 4xx is thrown.
   */
  async create(
    route: string,
    body: unknown,
    idempotencyKey: string,
    opts: { giveUpMs?: number; maxWaitS?: number } = {},
  ): Promise<any | undefined> {
    const deadline = Date.now() + (opts.giveUpMs ?? 180_000);
    while (Date.now() < deadline) {
      const answer = await this.send('POST', route, body, { 'Idempotency-Key': idempotencyKey });
      if (answer.status >= 200 && answer.status < 300) return answer.body.data;
      const retryable = answer.status === 0 || answer.status === 503 || answer.status === 409;
      if (!retryable) throw new Error(`POST ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const wait = Math.min(Number(answer.retryAfter ?? 1) || 1, opts.maxWaitS ?? 2);
      await sleep(answer.status === 0 ? 100 : wait * 1000);
    }
    return undefined;
  }
}
