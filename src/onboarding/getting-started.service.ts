import type { Knex } from 'knex';
import { preparedQuery } from '../db/prepared';
import type { GettingStartedShape, GettingStartedStep } from './getting-started.schemas';

const TITLES: Record<GettingStartedStep, string> = {
  key: 'Create an API key',
  persona: 'Create a persona (your agent)',
  voice: 'Give it a voice',
  talk: 'Talk to it',
  tool: 'Give it a tool',
  webhook: 'Receive its events on a webhook',
};

/**
 * Each step read from the account's real state, in one statement, in either environment: an active
 * API key; a persona; a persona with a voice; a session with at least one turn (an agent-test run's
 * sessions do not count); a persona that names a tool (docs/personas.md "Tools"); a webhook.
 * (It reads other areas' tables, read only.)
 */
const STEPS_SQL = `select
    exists (select 1 from api_keys where account_id = ? and revoked_at is null) as key,
    exists (select 1 from personas where account_id = ?) as persona,
    exists (select 1 from personas where account_id = ? and manifest #>> '{voice,voice_id}' is not null) as voice,
    exists (select 1 from sessions where account_id = ? and turn_count > 0 and test_run_id is null) as talk,
    exists (select 1 from personas where account_id = ? and jsonb_typeof(manifest->'tools') = 'array'
      and jsonb_array_length(manifest->'tools') > 0) as tool,
    exists (select 1 from webhooks where account_id = ?) as webhook`;

/** GET /getting-started: the first five minutes' checklist, each step ticked from real state. */
export async function gettingStarted(
  knex: Knex,
  accountId: string,
  demoMcpUrl: string | undefined,
): Promise<GettingStartedShape> {
  const [row] = await preparedQuery<Record<GettingStartedStep, boolean>>(
    knex,
    'getting-started-steps',
    STEPS_SQL,
  )(Array(6).fill(accountId));
  const steps = (Object.keys(TITLES) as GettingStartedStep[]).map((id) => ({
    id,
    title: TITLES[id],
    done: Boolean(row?.[id]),
  }));
  return {
    steps,
    done: steps.filter((s) => s.done).length,
    total: steps.length,
    demoMcpUrl: demoMcpUrl ?? null,
  };
}
