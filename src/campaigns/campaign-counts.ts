import type { Knex } from 'knex';
import { CALL_OUTCOMES, type CallOutcome } from './statuses';

/** A campaign's contacts per final outcome, and where they all are (docs/campaigns.md "API"). */
export interface CampaignCounts {
  outcomes: Record<CallOutcome, number>;
  progress: {
    total: number;
    done: number;
    calling: number;
    waitingRetry: number;
    pending: number;
    canceled: number;
    calls: number;
  };
}

interface CountRow {
  campaign_id: string;
  status: string;
  outcome: string | null;
  n: number;
  calls: number;
}

const emptyCounts = (): CampaignCounts => ({
  outcomes: Object.fromEntries(CALL_OUTCOMES.map((o) => [o, 0])) as Record<CallOutcome, number>,
  progress: { total: 0, done: 0, calling: 0, waitingRetry: 0, pending: 0, canceled: 0, calls: 0 },
});

const PROGRESS_OF: Record<string, keyof CampaignCounts['progress']> = {
  done: 'done',
  calling: 'calling',
  retry: 'waitingRetry',
  pending: 'pending',
  canceled: 'canceled',
};

/** The counts of each campaign of `ids`, in one grouped statement over their contacts. */
export async function campaignCounts(
  knex: Knex | Knex.Transaction,
  ids: string[],
): Promise<Map<string, CampaignCounts>> {
  const counts = new Map(ids.map((id) => [id, emptyCounts()]));
  if (ids.length === 0) return counts;
  const { rows } = await knex.raw<{ rows: CountRow[] }>(
    `select campaign_id, status, outcome, count(*)::int as n, sum(attempt_count)::int as calls
       from campaign_contacts where campaign_id = any(?) group by campaign_id, status, outcome`,
    [ids],
  );
  for (const row of rows) {
    const c = counts.get(row.campaign_id)!;
    c.progress.total += row.n;
    c.progress.calls += row.calls;
    const where = PROGRESS_OF[row.status];
    if (where) c.progress[where] += row.n;
    if (row.status === 'done' && row.outcome) c.outcomes[row.outcome as CallOutcome] += row.n;
  }
  return counts;
}
