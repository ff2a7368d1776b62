import type { VoicePlatform } from '../client';
import { NotFoundError } from '../errors';
import type { ItemOf, ResultOf } from '../operation-types';
import {
  type CliCommand,
  clock,
  interruptSignal,
  intervalOption,
  parseCommandArgs,
  pollUntil,
} from './command';
import { clientFromConfig } from './config';

const HELP = `Usage: vp logs tail [--webhook ID] [--interval MS]

Follows your webhooks' deliveries: one line per delivery attempt as it happens (time, event
type, webhook, status, receiver's status code, latency, delivery and attempt), by polling each
webhook's delivery log (GET /webhooks/:id/logs). Deliveries from before it started are not shown;
the webhooks created while it runs are followed too. Ctrl-C stops it.

Options:
  --webhook ID     only this webhook's deliveries
  --interval MS    how often to poll (default 1000)`;

const OPTIONS = { webhook: { type: 'string' }, interval: { type: 'string' } } as const;
const PAGE = 100;

type Entry = ItemOf<'webhooks.logs.list'>;
type Attempt = ResultOf<'webhooks.logs.get'>['attemptLog'][number];

/**
 * Where the tail is in one webhook's log, which lists deliveries newest first: the attempts already
 * printed of each delivery seen, and which of those were still pending (they may try again).
 */
interface LogCursor {
  printed: Map<string, number>;
  pending: Set<string>;
}

function attemptLine(entry: Entry, attempt: Attempt): string {
  const status = attempt.success
    ? 'delivered'
    : attempt.attempt >= entry.attempts && entry.status === 'failed'
      ? 'failed'
      : 'retrying';
  const fields = [
    clock(attempt.attemptedAt),
    entry.eventType.padEnd(26),
    entry.webhookId,
    status.padEnd(9),
    String(attempt.statusCode ?? '-').padEnd(3),
    `${attempt.latencyMs}ms`.padStart(7),
    `${entry.id}#${attempt.attempt}`,
  ];
  const notes = [entry.test ? 'test send' : '', attempt.error ?? ''].filter(Boolean);
  return `${fields.join('  ')}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}\n`;
}

class DeliveryTail {
  private readonly cursors = new Map<string, LogCursor>();

  constructor(
    private readonly client: VoicePlatform,
    private readonly signal: AbortSignal,
    private readonly onlyWebhook?: string,
  ) {}

  private async webhookIds(): Promise<string[]> {
    if (this.onlyWebhook) return [this.onlyWebhook];
    const ids: string[] = [];
    for await (const webhook of this.client.webhooks.list({ limit: PAGE }, { signal: this.signal })) {
      ids.push(webhook.id);
    }
    return ids;
  }

  /** Takes every webhook's newest deliveries as seen: the tail prints what comes after. */
  async start(): Promise<number> {
    const ids = await this.webhookIds();
    for (const id of ids) {
      const page = await this.client.webhooks.logs.list(id, { limit: PAGE }, { signal: this.signal });
      const cursor: LogCursor = { printed: new Map(), pending: new Set() };
      for (const entry of page.data) this.remember(cursor, entry, entry.attempts);
      this.cursors.set(id, cursor);
    }
    return ids.length;
  }

  private remember(cursor: LogCursor, entry: Entry, printed: number): void {
    cursor.printed.set(entry.id, printed);
    if (entry.status === 'pending') cursor.pending.add(entry.id);
    else cursor.pending.delete(entry.id);
  }

  /** The deliveries newer than the cursor's (pages until one it has seen), and its pending ones. */
  private async changed(webhookId: string, cursor: LogCursor): Promise<Entry[]> {
    const entries = new Map<string, Entry>();
    for (let offset = 0; ; ) {
      const page = await this.client.webhooks.logs.list(
        webhookId,
        { limit: PAGE, offset },
        { signal: this.signal },
      );
      for (const entry of page.data) entries.set(entry.id, entry);
      offset += page.data.length;
      const reachedSeen = page.data.some((entry) => cursor.printed.has(entry.id));
      if (reachedSeen || page.data.length === 0 || offset >= page.pagination.total) break;
    }
    for (const id of cursor.pending) {
      if (entries.has(id)) continue;
      const entry = await this.client.webhooks.logs.get(webhookId, id, undefined, { signal: this.signal });
      entries.set(id, entry);
    }
    const settled = [...entries.values()].filter((entry) => entry.status !== 'pending');
    for (const entry of settled) cursor.pending.delete(entry.id);
    return [...entries.values()]
      .filter((entry) => entry.attempts > (cursor.printed.get(entry.id) ?? 0))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async pollWebhook(webhookId: string, cursor: LogCursor): Promise<void> {
    for (const entry of await this.changed(webhookId, cursor)) {
      const detail = await this.client.webhooks.logs.get(webhookId, entry.id, undefined, {
        signal: this.signal,
      });
      const printed = cursor.printed.get(entry.id) ?? 0;
      const fresh = detail.attemptLog.filter((attempt) => attempt.attempt > printed);
      for (const attempt of fresh) process.stdout.write(attemptLine(detail, attempt));
      this.remember(cursor, detail, Math.max(printed, ...fresh.map((attempt) => attempt.attempt)));
    }
  }

  /** One round: every webhook (new ones from their first delivery), each changed delivery's attempts. */
  async poll(): Promise<void> {
    for (const id of await this.webhookIds()) {
      const cursor = this.cursors.get(id) ?? { printed: new Map(), pending: new Set() };
      this.cursors.set(id, cursor);
      try {
        await this.pollWebhook(id, cursor);
      } catch (error) {
        // a webhook deleted while the tail runs: forget it (unless it is the one asked for)
        if (!(error instanceof NotFoundError) || this.onlyWebhook) throw error;
        this.cursors.delete(id);
      }
    }
  }
}

export const logsTailCommand: CliCommand = {
  words: ['logs', 'tail'],
  summary: 'Follow webhook deliveries as they happen',
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, OPTIONS, []);
    const intervalMs = intervalOption(parsed.values.interval, 1000);
    const interrupt = interruptSignal();
    try {
      const tail = new DeliveryTail(clientFromConfig(), interrupt.signal, parsed.values.webhook);
      const count = await tail.start();
      const what = parsed.values.webhook ?? `${count} webhook${count === 1 ? '' : 's'}`;
      process.stderr.write(`Following deliveries of ${what} (Ctrl-C to stop)\n`);
      await pollUntil(
        async () => {
          await tail.poll();
          return false;
        },
        intervalMs,
        interrupt.signal,
      );
      return 0;
    } catch (error) {
      if (interrupt.signal.aborted) return 0;
      throw error;
    } finally {
      interrupt.dispose();
    }
  },
};
