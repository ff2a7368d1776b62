import http from 'node:http';
import { Client } from 'pg';
import { derivedId } from '../../src/common/ids';

/** What one webhook's receiver saw of one event. */
interface Receipt {
  /** When the first copy arrived (performance.now()). */
  first: number;
  count: number;
  /** Copies that were not a retry of this event's delivery to this webhook (another delivery id, another body). */
  foreign: number;
}

/** What a chaos run delivered, counted at the receivers and in the database. */
export interface DeliveryFigures {
  /** Events the API answered 201 for. */
  acknowledged: number;
  /** acknowledged × webhooks. */
  expected: number;
  /** Distinct (webhook, acknowledged event) pairs received. */
  delivered: number;
  /** Receipts beyond the first of a (webhook, event) pair. */
  duplicates: number;
  /** Receipts that were not a retry of their pair's one delivery (must be 0). */
  foreignReceipts: number;
  /** Pairs not received whose event or delivery the database still holds as work to do. */
  pending: number;
  /** expected − delivered − pending (must be 0). */
  lost: number;
  /** Delivery rows of acknowledged events that ended `failed`. */
  failedDeliveries: number;
  /** Events delivered that the API never acknowledged (committed, but the answer was a 503). */
  unacknowledgedDelivered: number;
  /** From the first request to the last pair's first receipt. */
  seconds: number;
  deliveriesPerSecond: number;
}

/**
 * One local HTTP receiver per webhook, answering 200 at once and counting receipts per event. Each
 * receipt is checked to be its pair's delivery: the X-Service-Delivery-Id is the one derived from
 * event and webhook (so a second copy is a retry of that delivery, not a second fan-out) and the
 * body is the event named by X-Service-Event-Id.
 */
export class ChaosReceivers {
  readonly urls: string[] = [];
  /** Set once the webhooks exist, in receiver order. */
  webhookIds: string[] = [];
  private receipts: Map<string, Receipt>[] = [];
  private servers: http.Server[] = [];

  static async start(count: number): Promise<ChaosReceivers> {
    const receivers = new ChaosReceivers();
    for (let i = 0; i < count; i++) await receivers.listen(i);
    return receivers;
  }

  private async listen(index: number): Promise<void> {
    this.receipts.push(new Map());
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        res.end('ok');
        this.record(index, req.headers, Buffer.concat(chunks).toString('utf8'));
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.servers.push(server);
    this.urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`);
  }

  private record(index: number, headers: http.IncomingHttpHeaders, body: string): void {
    const eventId = String(headers['x-service-event-id']);
    let bodyId: unknown;
    try {
      bodyId = JSON.parse(body).id;
    } catch {
      bodyId = undefined;
    }
    const own =
      headers['x-service-delivery-id'] === derivedId('del', eventId, this.webhookIds[index]) &&
      bodyId === eventId;
    const seen = this.receipts[index].get(eventId);
    if (seen) {
      seen.count++;
      if (!own) seen.foreign++;
    } else {
      this.receipts[index].set(eventId, { first: performance.now(), count: 1, foreign: own ? 0 : 1 });
    }
  }

  /** Pairs of `events` received by every receiver so far. */
  deliveredOf(events: Iterable<string>): number {
    let n = 0;
    for (const id of events) for (const map of this.receipts) if (map.has(id)) n++;
    return n;
  }

  /** Forgets every receipt (between a baseline and a chaos run). */
  reset(): void {
    for (const map of this.receipts) map.clear();
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  /**
   * The figures of a run over `acked` events that started at `startedAt`, reading the database
   * directly (`databaseUrl`, not through the outage proxy) for what is still pending.
   */
  async tally(acked: Set<string>, startedAt: number, databaseUrl: string): Promise<DeliveryFigures> {
    let delivered = 0;
    let duplicates = 0;
    let foreignReceipts = 0;
    let lastFirst = startedAt;
    const missing: { eventId: string; webhookId: string }[] = [];
    const unacknowledged = new Set<string>();
    this.receipts.forEach((map, i) => {
      for (const [eventId, r] of map) {
        duplicates += r.count - 1;
        foreignReceipts += r.foreign;
        if (!acked.has(eventId)) unacknowledged.add(eventId);
      }
      for (const eventId of acked) {
        const r = map.get(eventId);
        if (!r) missing.push({ eventId, webhookId: this.webhookIds[i] });
        else {
          delivered++;
          lastFirst = Math.max(lastFirst, r.first);
        }
      }
    });
    const { pending, failed } = await databaseView(databaseUrl, acked, missing);
    const expected = acked.size * this.receipts.length;
    const seconds = (lastFirst - startedAt) / 1000;
    return {
      acknowledged: acked.size,
      expected,
      delivered,
      duplicates,
      foreignReceipts,
      pending,
      lost: expected - delivered - pending,
      failedDeliveries: failed,
      unacknowledgedDelivered: unacknowledged.size,
      seconds,
      deliveriesPerSecond: seconds > 0 ? delivered / seconds : 0,
    };
  }
}

/**
 * Of the pairs not received: how many the database still holds as work to do (the event not yet fanned
 * out, or its delivery `pending`); and how many deliveries of acknowledged events ended `failed`.
 */
async function databaseView(
  databaseUrl: string,
  acked: Set<string>,
  missing: { eventId: string; webhookId: string }[],
): Promise<{ pending: number; failed: number }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows: failedRows } = await db.query(
      `select count(*)::int as n from deliveries where status = 'failed' and event_id = any($1)`,
      [[...acked]],
    );
    const eventIds = [...new Set(missing.map((m) => m.eventId))];
    const { rows: undispatched } = await db.query(
      'select id from events where id = any($1) and dispatched_at is null',
      [eventIds],
    );
    const { rows: pendingRows } = await db.query(
      `select event_id, webhook_id from deliveries where event_id = any($1) and status = 'pending'`,
      [eventIds],
    );
    const waiting = new Set(undispatched.map((r) => r.id as string));
    const pendingPairs = new Set(pendingRows.map((r) => `${r.event_id} ${r.webhook_id}`));
    const pending = missing.filter(
      (m) => waiting.has(m.eventId) || pendingPairs.has(`${m.eventId} ${m.webhookId}`),
    ).length;
    return { pending, failed: failedRows[0].n as number };
  } finally {
    await db.end();
  }
}
