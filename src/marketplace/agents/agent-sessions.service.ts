import type { EntityManager } from '@mikro-orm/postgresql';
import type { Response } from 'express';
import type { PlatformAuth } from '../../auth/platform-auth';
import type { AppContext } from '../../common/context';
import { derivedId } from '../../common/ids';
import type { Owner } from '../../common/owner';
import { ApiError, conflict, forbidden, notFound } from '../../http/errors';
import type { TurnInput } from '../../sessions';
import { endSession, getSession, Session, startSession, takeTurn } from '../../sessions';
import { isGone, itemForUser } from '../execution/execution.service';
import { metering, periodOf } from '../execution/metering';
import { type AgentManifest, priceCents, quotaLimit } from '../items/manifest';
import type { Tier } from '../items/statuses';

/**
 * Installed marketplace agents run as voice sessions (src/sessions): the same workflow per session,
 * the same turns. The agent's persona manifest becomes a published persona of the marketplace's own
 * account (one per item version, created on first use), so sessions of marketplace agents belong to
 * that account's `live` environment and never to a developer's; the session's user id is the
 * marketplace user. The model is offered the marketplace tools that user installed; every turn is
 * metered against the user's quota for the agent (kind `agent_turn`).
 */
export const MARKETPLACE_ACCOUNT_ID = 'pub_marketplace_agents';
const MARKETPLACE_OWNER: Owner = { accountId: MARKETPLACE_ACCOUNT_ID, environment: 'live' };

/** The agent item, installed and live for this user, or the refusal as an API error. */
async function installedAgent(ctx: AppContext, itemId: string, userId: string) {
  const knex = ctx.orm.em.getConnection().getKnex();
  const item = await itemForUser(knex, itemId, userId);
  if (item?.type !== 'agent' || item.status === 'pending_review' || item.status === 'rejected') {
    throw notFound('Agent');
  }
  if (isGone(item)) {
    throw new ApiError(410, 'GONE', `Agent ${itemId} was removed from the marketplace by its publisher`);
  }
  if (item.installationStatus !== 'active') {
    throw forbidden(`Agent ${itemId} is not installed for user ${userId}; install it first`);
  }
  return { ...item, manifest: item.manifest as AgentManifest };
}

/** The published persona of an agent version (created once; ids derived from item and version). */
async function agentPersona(em: EntityManager, itemId: string, version: string, manifest: AgentManifest) {
  const id = derivedId('persona', 'marketplace', itemId, version);
  // one statement: the marketplace's account (once) and the persona (once per item version)
  await em.getConnection().execute(
    `with account as (
       insert into accounts (id, issuer, subject, email, plan, created_at, updated_at)
       values (?, 'urn:voice-platform:marketplace', 'agents', null, 'enterprise', now(), now())
       on conflict do nothing
     )
     insert into personas (id, account_id, status, manifest, slug, name, tagline, category, version, submissions,
       submitted_at, published_at, created_at, updated_at)
     values (?, ?, 'published', ?::jsonb, null, ?, ?, 'marketplace', 1, 0, now(), now(), now(), now())
     on conflict (id) do nothing`,
    [
      MARKETPLACE_ACCOUNT_ID,
      id,
      MARKETPLACE_ACCOUNT_ID,
      JSON.stringify(manifest.persona),
      manifest.displayName.slice(0, 500),
      manifest.description.short.slice(0, 1000),
    ],
  );
  return id;
}

const marketplaceAuth: PlatformAuth = {
  accountId: MARKETPLACE_ACCOUNT_ID,
  environment: 'live',
  keyId: 'marketplace',
  scopes: [],
  plan: 'enterprise',
};

/** The user's session of this agent, or 404 (another user's, another agent's, or none). */
async function agentSession(em: EntityManager, itemId: string, userId: string, sessionId: string) {
  const session = await em.findOne(Session, { id: sessionId, account: MARKETPLACE_ACCOUNT_ID });
  if (!session || session.userId !== userId || session.metadata?.marketplaceItemId !== itemId) {
    throw notFound('Session');
  }
  return session;
}

/** POST /agents/:itemId/sessions: a voice session with an installed agent. */
export async function startAgentSession(
  ctx: AppContext,
  em: EntityManager,
  input: { itemId: string; userId: string; tier: Tier; metadata?: Record<string, unknown> },
) {
  const item = await installedAgent(ctx, input.itemId, input.userId);
  const personaId = await agentPersona(em, item.id, item.version, item.manifest);
  return startSession(ctx, em, marketplaceAuth, {
    personaId,
    userId: input.userId,
    metadata: {
      ...(input.metadata ?? {}),
      marketplaceItemId: item.id,
      marketplaceVersion: item.version,
      subscriptionTier: input.tier,
    },
  });
}

/**
 * A turn with an installed agent: counted against the user's monthly quota for the agent first (429
 * `QUOTA_EXCEEDED` when used up, exact under concurrency), then taken as any session turn; its
 * metering record gets the duration and whether the agent answered without an error. A turn the
 * session refuses (409) is taken back from the quota, record and count.
 */
export async function agentTurn(
  ctx: AppContext,
  em: EntityManager,
  input: { itemId: string; userId: string; tier: Tier; sessionId: string; turn: TurnInput },
  res: Response,
) {
  const item = await installedAgent(ctx, input.itemId, input.userId);
  const session = await agentSession(em, input.itemId, input.userId, input.sessionId);
  if (session.status !== 'active') throw conflict(`Session ${session.id} has ended`);
  const limit = quotaLimit(item.manifest, input.tier);
  const meter = metering(ctx.orm.em.getConnection().getKnex());
  const period = periodOf();
  const reservation = await meter.reserve({
    userId: input.userId,
    itemId: item.id,
    kind: 'agent_turn',
    tier: input.tier,
    limit,
    period,
  });
  if (!reservation) {
    res.setHeader('Retry-After', '3600');
    throw new ApiError(
      429,
      'QUOTA_EXCEEDED',
      `Monthly quota of ${limit} turns with ${item.id} for the ${input.tier} tier is used up`,
    );
  }
  const started = performance.now();
  try {
    const turn = await takeTurn(ctx, em, MARKETPLACE_OWNER, session.id, input.turn, res);
    await meter.finish(reservation.recordId, {
      durationMs: performance.now() - started,
      success: !turn.error,
      errorCode: turn.error ? 'TOOL_ERROR' : undefined,
      error: turn.error ?? undefined,
      priceCents: priceCents(item.manifest),
    });
    return turn;
  } catch (error) {
    // refused (the session ended, or is answering another turn): no turn was taken, none is counted
    if (error instanceof ApiError && error.status === 409) {
      await meter.release(reservation.recordId);
      throw error;
    }
    await meter.finish(reservation.recordId, {
      durationMs: performance.now() - started,
      success: false,
      errorCode: 'TOOL_ERROR',
      error: (error as Error).message,
      priceCents: 0,
    });
    throw error;
  }
}

export async function getAgentSession(em: EntityManager, itemId: string, userId: string, sessionId: string) {
  await agentSession(em, itemId, userId, sessionId);
  return getSession(em, MARKETPLACE_OWNER, sessionId);
}

export async function endAgentSession(
  ctx: AppContext,
  em: EntityManager,
  itemId: string,
  userId: string,
  sessionId: string,
  res: Response,
) {
  await agentSession(em, itemId, userId, sessionId);
  return endSession(ctx, em, MARKETPLACE_OWNER, sessionId, res);
}
