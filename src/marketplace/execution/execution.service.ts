import type { Knex } from 'knex';
import type { CoreContext } from '../../common/context';
import { preparedStatement } from '../../db/prepared';
import {
  type ItemManifest,
  isExecutable,
  priceCents,
  quotaLimit,
  type ToolManifest,
} from '../items/manifest';
import type { InstallationStatus, ItemStatus, ItemType, Tier } from '../items/statuses';
import { metering, periodEnd, periodOf } from './metering';
import { inputProblems, type RunErrorCode, runTool } from './runtime';

/** An item as one user sees it for running: its live manifest, their installation, their runs this month. */
export interface ItemForUser {
  id: string;
  type: ItemType;
  status: ItemStatus;
  manifest: ItemManifest;
  version: string;
  removesAt: Date | null;
  installationId: string | null;
  /** `active`, or `removed` when the item's grace period ended; null when not installed. */
  installationStatus: InstallationStatus | null;
  used: number;
}

const ITEM_FOR_USER_SQL = `select i.id, i.type, i.status, i.manifest, i.version, i.removes_at,
    inst.id as installation_id, inst.status as installation_status, coalesce(c.used, 0) as used
  from marketplace_items i
  left join lateral (
    select id, status from marketplace_installations
    where item_id = i.id and user_id = $2 and status in ('active', 'removed')
    order by (status = 'active') desc, installed_at desc limit 1
  ) inst on true
  left join marketplace_quota_counters c on c.user_id = $2 and c.item_id = i.id and c.period = $3
  where i.id = $1`;

interface ItemForUserRow {
  id: string;
  type: ItemType;
  status: ItemStatus;
  manifest: ItemManifest;
  version: string;
  removes_at: Date | null;
  installation_id: string | null;
  installation_status: InstallationStatus | null;
  used: number;
}

const lookups = new WeakMap<Knex, (values: unknown[]) => Promise<ItemForUserRow[]>>();

/** One prepared statement: the item, the user's installation and their runs in `period`. */
export async function itemForUser(
  knex: Knex,
  itemId: string,
  userId: string,
  period = periodOf(),
): Promise<ItemForUser | null> {
  let lookup = lookups.get(knex);
  if (!lookup) {
    lookup = preparedStatement<ItemForUserRow>(knex, 'mkt_item_for_user', ITEM_FOR_USER_SQL);
    lookups.set(knex, lookup);
  }
  const [row] = await lookup([itemId, userId, period]);
  if (!row) return null;
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    manifest: row.manifest,
    version: row.version,
    removesAt: row.removes_at ? new Date(row.removes_at) : null,
    installationId: row.installation_id,
    installationStatus: row.installation_status,
    used: row.used,
  };
}

/** True once an item's removal took effect (or its grace period is over and the workflow is late). */
export function isGone(item: ItemForUser, now = Date.now()): boolean {
  return (
    item.status === 'removed' ||
    item.installationStatus === 'removed' ||
    (item.status === 'removal_scheduled' && item.removesAt !== null && item.removesAt.getTime() <= now)
  );
}

export interface QuotaState {
  period: string;
  used: number;
  limit: number;
  remaining: number;
  /** When the period's quota resets (the next month's first instant, UTC). */
  resetsAt: string;
}

export const quotaState = (period: string, used: number, limit: number): QuotaState => ({
  period,
  used,
  limit,
  remaining: Math.max(limit - used, 0),
  resetsAt: periodEnd(period).toISOString(),
});

/** Why a run was refused (the HTTP route answers 404, 403, 410, 400, 400 and 429). */
export type RefusalReason =
  | 'not_found'
  | 'not_installed'
  | 'gone'
  | 'not_executable'
  | 'invalid_arguments'
  | 'quota_exceeded';

export type ExecuteInstalledToolResult =
  | {
      status: 'ran';
      itemId: string;
      version: string;
      success: boolean;
      result?: unknown;
      error?: string;
      errorCode?: RunErrorCode;
      durationMs: number;
      quota: QuotaState;
    }
  | {
      status: 'refused';
      itemId: string;
      reason: RefusalReason;
      message: string;
      validationErrors?: string[];
      /** quota_exceeded: the state of the quota, and seconds until it resets. */
      quota?: QuotaState;
      retryAfterSeconds?: number;
    };

export interface ExecuteInstalledToolInput {
  userId: string;
  tier: Tier;
  itemId: string;
  arguments: Record<string, unknown>;
}

/**
 * Runs a marketplace tool the user has installed, exactly as `POST /api/marketplace/execute/:itemId`
 * does, and answers a result object instead of an HTTP answer. Voice sessions call it for the tools
 * `installedToolsForUser` offers the model.
 *
 * In order: the item must exist (`not_found`); a removed item, or one past its removal grace period,
 * is `gone`; the user must have an active installation (`not_installed`); it must be an executable
 * tool (`not_executable`: agents, and runtimes other than mcp and http); the arguments must match
 * `interface.inputSchema` (`invalid_arguments`); then ONE statement counts the run against the
 * user's quota for the item and month (`quota_exceeded` when used up, exact under concurrency) and
 * inserts its metering record; the tool runs (MCP tools/call or HTTP POST through the SSRF guard,
 * 30 s, 1 MiB); the record gets the duration, success, error code and price. A tool that fails is
 * `ran` with `success: false` and an `errorCode`; it still counts against the quota, and is not charged.
 */
export async function executeInstalledTool(
  ctx: Pick<CoreContext, 'orm' | 'config' | 'mcpConnections'>,
  input: ExecuteInstalledToolInput,
): Promise<ExecuteInstalledToolResult> {
  const knex = ctx.orm.em.getConnection().getKnex();
  const { itemId, userId, tier } = input;
  const period = periodOf();
  const item = await itemForUser(knex, itemId, userId, period);
  const refuse = refusal(itemId);
  const eligible = eligibleTool(item, input, refuse);
  if ('status' in eligible) return eligible;
  const { manifest } = eligible;
  const limit = quotaLimit(manifest, tier);
  const meter = metering(knex);
  const reservation = await meter.reserve({ userId, itemId, kind: 'execution', tier, limit, period });
  if (!reservation) {
    const quota = quotaState(period, Math.max(item!.used, limit), limit);
    return refuse(
      'quota_exceeded',
      `Monthly quota of ${limit} executions of ${itemId} for the ${tier} tier is used up; it resets at ${quota.resetsAt}`,
      { quota, retryAfterSeconds: Math.max(1, Math.ceil((Date.parse(quota.resetsAt) - Date.now()) / 1000)) },
    );
  }
  const started = performance.now();
  const outcome = await runToolOutcome(ctx, manifest, input.arguments);
  const durationMs = Math.round(performance.now() - started);
  await meter.finish(reservation.recordId, {
    durationMs,
    success: outcome.success,
    errorCode: outcome.success ? undefined : outcome.errorCode,
    error: outcome.success ? undefined : outcome.error,
    priceCents: priceCents(manifest),
  });
  const ran = { status: 'ran', itemId, version: item!.version, durationMs } as const;
  const quota = quotaState(period, reservation.used, limit);
  return outcome.success
    ? { ...ran, success: true, result: outcome.result, quota }
    : { ...ran, success: false, error: outcome.error, errorCode: outcome.errorCode, quota };
}

type Refuse = (
  reason: RefusalReason,
  message: string,
  extra?: Partial<ExecuteInstalledToolResult>,
) => ExecuteInstalledToolResult;

const refusal =
  (itemId: string): Refuse =>
  (reason, message, extra = {}) =>
    ({ status: 'refused', itemId, reason, message, ...extra }) as ExecuteInstalledToolResult;

/**
 * The checks before a run, in order (see executeInstalledTool): the refusal of the first that
 * fails, or the executable tool's manifest.
 */
function eligibleTool(
  item: ItemForUser | null,
  input: ExecuteInstalledToolInput,
  refuse: Refuse,
): ExecuteInstalledToolResult | { manifest: ToolManifest } {
  const { itemId, userId } = input;
  if (!item || item.status === 'pending_review' || item.status === 'rejected') {
    // never approved: not in the marketplace yet
    return refuse('not_found', `Item ${itemId} not found`);
  }
  if (isGone(item)) {
    return refuse('gone', `Item ${itemId} was removed from the marketplace by its publisher`);
  }
  if (item.installationStatus !== 'active') {
    return refuse('not_installed', `Item ${itemId} is not installed for user ${userId}; install it first`);
  }
  if (item.type !== 'tool') {
    return refuse('not_executable', `Item ${itemId} is an agent; agents run as voice sessions`, {
      validationErrors: [`itemId: ${itemId} is an agent, not a tool`],
    });
  }
  const manifest = item.manifest as ToolManifest;
  if (!isExecutable(manifest)) {
    return refuse(
      'not_executable',
      `Tool ${itemId} uses the "${manifest.execution.runtime.type}" runtime, which this platform does not run`,
      { validationErrors: [`itemId: runtime "${manifest.execution.runtime.type}" is not executable here`] },
    );
  }
  const problems = inputProblems(manifest.interface.inputSchema, input.arguments);
  if (problems.length > 0) {
    return refuse('invalid_arguments', 'The arguments do not match the tool input schema', {
      validationErrors: problems,
    });
  }
  return { manifest };
}

/** Runs the tool; a failure to run it at all is an outcome too (`PROTOCOL_ERROR`). */
async function runToolOutcome(
  ctx: Pick<CoreContext, 'config' | 'mcpConnections'>,
  manifest: ToolManifest,
  args: Record<string, unknown>,
): Promise<Awaited<ReturnType<typeof runTool>>> {
  try {
    return await runTool(ctx, manifest, args);
  } catch (error) {
    return { success: false, error: (error as Error).message ?? String(error), errorCode: 'PROTOCOL_ERROR' };
  }
}
