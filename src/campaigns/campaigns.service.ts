import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import { findOwned, listOwned } from '../common/owned';
import type { Owner } from '../common/owner';
import { ApiError, planLimitReached, validationFailed } from '../http/errors';
import { personaForSession } from '../personas';
import { CALL_LIMITS, checkDestination, findPhoneNumber } from '../telephony';
import { Campaign, CampaignContact } from './campaign.entity';
import { type CampaignCounts, campaignCounts } from './campaign-counts';
import { startCampaignWorkflow } from './campaign-workflows';
import type { CreateCampaignInput, ListCampaignsInput, ListContactsInput } from './campaigns.schemas';

/** The campaign as the API shows it, with its counts. */
export function campaignView(c: Campaign, counts: CampaignCounts) {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    phoneNumberId: c.phoneNumberId,
    personaId: c.personaId,
    concurrency: c.concurrency,
    callingHours: c.callingHours,
    retry: c.retry,
    ...counts,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    endedAt: c.endedAt?.toISOString() ?? null,
  };
}

const knexOf = (em: EntityManager) => em.getConnection().getKnex();

export const findCampaign = (em: EntityManager, owner: Owner, id: string) =>
  findOwned(em, Campaign, owner, id, 'Campaign');

export async function viewCampaign(em: EntityManager, campaign: Campaign) {
  const counts = await campaignCounts(knexOf(em), [campaign.id]);
  return campaignView(campaign, counts.get(campaign.id)!);
}

/**
 * Refuses what the plan does not allow: more calls at once than its cap on calls at once, or more
 * contacts than it allows calls a day (403 PLAN_LIMIT_REACHED).
 */
function checkCampaignCaps(auth: PlatformAuth, input: CreateCampaignInput): void {
  const { concurrent, perDay } = CALL_LIMITS[auth.plan];
  if (concurrent !== null && input.concurrency > concurrent)
    throw planLimitReached(
      `The ${auth.plan} plan allows ${concurrent} calls at once: lower concurrency or upgrade`,
    );
  if (perDay !== null && input.contacts.length > perDay)
    throw planLimitReached(`The ${auth.plan} plan allows ${perDay} calls a day: fewer contacts, or upgrade`);
}

/** Each contact's destination, checked as a call's is (toll fraud, allowed countries), named by its place. */
function checkContacts(accountId: string, from: string, input: CreateCampaignInput): void {
  const problems: string[] = [];
  input.contacts.forEach((contact, i) => {
    try {
      checkDestination(accountId, from, contact.to);
    } catch (error) {
      if (!(error instanceof ApiError) || !error.validationErrors) throw error;
      problems.push(...error.validationErrors.map((e) => `contacts.${i}.${e}`));
    }
  });
  if (problems.length > 0) throw validationFailed(problems.slice(0, 50));
}

/**
 * POST /campaigns: checks the number, the persona, every contact's destination and the plan's caps,
 * commits the campaign and its contacts, then starts its workflow (if Temporal cannot be reached,
 * the dispatcher starts it a few seconds later: the row is the outbox). Any refusal commits nothing.
 */
export async function createCampaign(
  ctx: AppContext,
  em: EntityManager,
  auth: PlatformAuth,
  input: CreateCampaignInput,
) {
  const number = await findPhoneNumber(em, auth, input.phoneNumberId);
  await personaForSession(em, {
    accountId: auth.accountId,
    environment: auth.environment,
    personaId: input.personaId,
  });
  checkContacts(auth.accountId, number.number, input);
  checkCampaignCaps(auth, input);
  const campaign = await em.transactional(async (tem) => {
    const created = tem.create(Campaign, {
      account: auth.accountId,
      environment: auth.environment,
      name: input.name,
      phoneNumberId: number.id,
      personaId: input.personaId,
      fromNumber: number.number,
      concurrency: input.concurrency,
      callingHours: input.callingHours,
      retry: input.retry,
      contactCount: input.contacts.length,
      minuteMs: ctx.config.telephony.campaignMinuteMs,
    });
    await tem.flush();
    // knex binds arrays as PostgreSQL arrays: the contacts go in one statement
    const knex = tem.getConnection().getKnex();
    await knex
      .raw(
        `insert into campaign_contacts (campaign_id, index, "to", variables)
       select ?, c.index, c.to_number, c.variables
       from unnest(?::int[], ?::text[], ?::jsonb[]) as c(index, to_number, variables)`,
        [
          created.id,
          input.contacts.map((_, i) => i),
          input.contacts.map((c) => c.to),
          input.contacts.map((c) => JSON.stringify(c.variables ?? {})),
        ],
      )
      .transacting(tem.getTransactionContext()!);
    return created;
  });
  await startCommitted(ctx, em, campaign);
  return viewCampaign(em, campaign);
}

/** Starts a committed campaign's workflow; when Temporal cannot be reached, the dispatcher will. */
export async function startCommitted(
  ctx: AppContext,
  em: EntityManager,
  campaign: Campaign,
): Promise<boolean> {
  try {
    await startCampaignWorkflow(ctx.temporal, ctx.config, {
      id: campaign.id,
      accountId: campaign.account,
      phoneNumberId: campaign.phoneNumberId,
      personaId: campaign.personaId,
      concurrency: campaign.concurrency,
      callingHours: campaign.callingHours,
      minuteMs: campaign.minuteMs,
      createdAt: campaign.createdAt,
    });
    await em.nativeUpdate(Campaign, { id: campaign.id }, { workflowStartedAt: new Date() });
    return true;
  } catch (error) {
    ctx.logger.warn(
      { err: error, campaignId: campaign.id },
      'campaign workflow not started yet; the dispatcher will',
    );
    return false;
  }
}

export async function listCampaigns(em: EntityManager, owner: Owner, query: ListCampaignsInput) {
  const where: Record<string, unknown> = {};
  if (query.status) where.status = query.status;
  const { items, total } = await listOwned(em, Campaign, owner, query, where);
  const counts = await campaignCounts(
    knexOf(em),
    items.map((c) => c.id),
  );
  return { data: items.map((c) => campaignView(c, counts.get(c.id)!)), total };
}

export async function getCampaign(em: EntityManager, owner: Owner, id: string) {
  return viewCampaign(em, await findCampaign(em, owner, id));
}

/** GET /campaigns/:id/contacts: a page of the contacts, by their place in the request. */
export async function listContacts(em: EntityManager, owner: Owner, id: string, query: ListContactsInput) {
  await findCampaign(em, owner, id);
  const where = { campaignId: id, ...(query.status ? { status: query.status } : {}) };
  const [items, total] = await em.findAndCount(CampaignContact, where, {
    orderBy: { index: 'asc' },
    limit: query.limit,
    offset: query.offset,
  });
  return {
    data: items.map((c) => ({
      index: c.index,
      to: c.to,
      variables: c.variables,
      status: c.status,
      attempts: c.attempts,
      outcome: c.outcome,
      nextAttemptAt: c.nextAttemptAt?.toISOString() ?? null,
    })),
    total,
  };
}
