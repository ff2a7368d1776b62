import type { CoreContext } from '../../common/context';
import type { Logger } from '../../logging/logger';
import { voiceStreamCloses, voiceStreamsOpen } from '../../telemetry/metrics';
import { recordStreamAbuse } from './stream-leases';
import type { DropReason, StreamSocket } from './stream-socket';

/** How a stream ended, as its close log line and `voice_stream_closes_total` say. */
export type CloseReason = 'ended' | 'disconnected' | 'idle_timeout' | 'busy' | 'failed' | DropReason;

/**
 * A live call's log lines and gauges (docs/voice-stream.md "Observing streams"): one line when it
 * opens, one when it closes with its outcome (a drop for abuse also starts the account's cool-down), how long it lasted, its turns and its frames each way
 * (taken, dropped over its budgets, refused as invalid), and error notices it was not sent.
 */
export class CallLog {
  private readonly openedAt = Date.now();
  private isOpen = false;
  /** The outcome when the call ended before it held its session (busy, failed). */
  private early?: CloseReason;
  turns = 0;

  constructor(
    private readonly ctx: CoreContext,
    private readonly call: { sessionId: string; accountId: string },
  ) {}

  private get logger(): Logger {
    return this.ctx.logger;
  }

  opened(): void {
    this.isOpen = true;
    voiceStreamsOpen.inc();
    this.logger.info(this.call, 'a voice stream opened');
  }

  outcome(reason: CloseReason): void {
    this.early ??= reason;
  }

  closed(reason: CloseReason, socket: StreamSocket, code?: number): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    voiceStreamsOpen.dec();
    const outcome = this.early ?? reason;
    voiceStreamCloses.labels(outcome).inc();
    const { stats, budget } = socket;
    const line = {
      ...this.call,
      outcome,
      closeCode: code,
      durationMs: Date.now() - this.openedAt,
      turns: this.turns,
      ...stats,
      suppressedErrors: budget.suppressedNotices,
    };
    if (outcome === 'client_not_reading' || outcome === 'flooding') {
      this.logger.warn(line, 'a voice stream was dropped');
      recordStreamAbuse(this.ctx, this.call.accountId).catch((error) =>
        this.logger.warn({ err: error, ...this.call }, 'a dropped stream’s cool-down was not recorded'),
      );
    } else this.logger.info(line, 'a voice stream closed');
  }
}
