import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { conflict, notFound, validationFailed } from '../http/errors';
import { startRecoveryWorkflow } from './delivery-workflows';
import { WebhookRecovery } from './recovery.entity';
import type { RecoverWebhookInput } from './recovery.schemas';
import { findWebhook } from './webhooks.service';

/** A recovery with its deliveries counted by outcome (one index probe on `recovery_id`). */
async function recoveryView(em: EntityManager, r: WebhookRecovery) {
  const [counts] = await em.getConnection().execute<{ sent: number; failed: number; pending: number }[]>(
    `select count(*) filter (where status = 'delivered')::int as sent,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where status = 'pending')::int as pending
     from deliveries where recovery_id = ?`,
    [r.id],
  );
  return {
    id: r.id,
    webhookId: r.webhookId,
    status: r.status,
    since: r.since.toISOString(),
    until: r.until.toISOString(),
    total: r.total,
    sent: counts.sent,
    failed: counts.failed,
    pending: counts.pending,
    ...(r.error ? { error: r.error } : {}),
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt ? r.completedAt.toISOString() : null,
  };
}

/** `since` within the recovery window, `until` after it and not in the future (default now). */
function recoveryWindow(ctx: AppContext, input: RecoverWebhookInput): { since: Date; until: Date } {
  const now = Date.now();
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : new Date(now);
  const days = ctx.config.webhooks.recoveryWindowMs / 86_400_000;
  const problems: string[] = [];
  if (since.getTime() < now - ctx.config.webhooks.recoveryWindowMs) {
    problems.push(`since: must be within the last ${days} days (events older than that are not recovered)`);
  }
  if (since.getTime() > now) problems.push('since: must not be in the future');
  if (until.getTime() <= since.getTime()) problems.push('until: must be after since');
  if (problems.length) throw validationFailed(problems);
  return { since, until: new Date(Math.min(until.getTime(), now)) };
}

/**
 * POST /webhooks/:id/recover: commits the recovery row, then starts its workflow (workflow id =
 * recovery id); a start that fails now is the dispatcher's to retry. Only an enabled webhook, and
 * one recovery at a time per webhook (the webhook's row is locked while checking), else 409.
 */
export async function recoverWebhook(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  id: string,
  input: RecoverWebhookInput,
) {
  const window = recoveryWindow(ctx, input);
  const recovery = await em.transactional(async (tem) => {
    const webhook = await findWebhook(tem, auth, id, { lock: true });
    if (!webhook.enabled) throw conflict('The webhook is disabled; enable it before recovering events');
    const running = await tem.count(WebhookRecovery, { webhookId: webhook.id, status: 'running' });
    if (running > 0) throw conflict('A recovery of this webhook is still running');
    return tem.create(WebhookRecovery, {
      account: auth.accountId,
      environment: auth.environment,
      webhookId: webhook.id,
      ...window,
    });
  });
  await startRecoveryWorkflow(ctx.temporal, ctx.config, {
    id: recovery.id,
    accountId: recovery.account,
    webhookId: recovery.webhookId,
  })
    .then(() =>
      em
        .getConnection()
        .execute(
          'update webhook_recoveries set workflow_started_at = now() where id = ? and workflow_started_at is null',
          [recovery.id],
        ),
    )
    .catch((error) =>
      ctx.logger.warn({ err: error, recoveryId: recovery.id }, 'recovery start deferred to the dispatcher'),
    );
  return recoveryView(em, recovery);
}

export async function getRecovery(
  em: EntityManager,
  auth: PlatformAuth,
  webhookId: string,
  recoveryId: string,
) {
  await findWebhook(em, auth, webhookId);
  const recovery = await em.findOne(WebhookRecovery, { id: recoveryId, webhookId }, { refresh: true });
  if (!recovery) throw notFound('Recovery');
  return recoveryView(em, recovery);
}
