import type { CampaignRig } from './support/campaigns';
import { contactNumber, startCampaignRig, waitForCampaign } from './support/campaigns';

/**
 * 10 000 contacts (issue 42): the campaign's workflow continues as new in batches, and no run's
 * history reaches 10 000 events; the contacts never travel in its input. The carrier double refuses
 * every call at once (a 400), so each call is over in two activities. A run holds about 1 000 calls;
 * calling all 10 000 takes some 7 minutes on a 2-core machine (11 runs of 2 500 to 4 150 events,
 * measured), so the test lets the campaign continue as new twice, cancels it, and checks every run.
 */
describe('a campaign of 10 000 contacts', () => {
  let rig: CampaignRig;
  beforeAll(async () => {
    rig = await startCampaignRig({ CAMPAIGN_MINUTE_MS: '100' });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  /** Each run of the campaign's workflow, first to last: its event count and input size. */
  async function runsOf(id: string): Promise<{ events: number; inputBytes: number }[]> {
    const temporal = rig.app.ctx.temporal;
    const runs: { events: number; inputBytes: number }[] = [];
    let runId: string | undefined = (await temporal.workflow.getHandle(id).describe()).runId;
    while (runId) {
      const current: string = runId;
      const history = await temporal.workflow.getHandle(id, current).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      const payloads = started?.input?.payloads ?? [];
      let inputBytes = 0;
      for (const p of payloads) inputBytes += p.data?.length ?? 0;
      runs.push({ events: history.events?.length ?? 0, inputBytes });
      const previous: string | null | undefined = started?.continuedExecutionRunId;
      runId = previous ?? undefined;
    }
    return runs.reverse();
  }

  /** The calls of the campaign's contacts' attempts: id, status and ended reason. */
  async function callsOf(campaignId: string) {
    const knex = rig.app.ctx.orm.em.getConnection().getKnex();
    const { rows } = await knex.raw<{ rows: { id: string; status: string; ended_reason: string | null }[] }>(
      `select id, status, ended_reason from calls where id in (
         select a ->> 'callId' from campaign_contacts, jsonb_array_elements(attempts) a where campaign_id = ?)`,
      [campaignId],
    );
    return rows;
  }

  it('continues as new, each run under 10 000 events', async () => {
    rig.double.script({ outcome: 'refuse' });
    const n = 10_000;
    const created = await rig.api('POST', '/campaigns', {
      name: 'Everyone',
      phoneNumberId: rig.number.id,
      personaId: rig.personaId,
      contacts: Array.from({ length: n }, (_, i) => ({ to: contactNumber(i) })),
      concurrency: 50,
      callingHours: { start: '00:00', end: '23:59', timezone: 'UTC' },
      retry: { onBusy: true, onNoAnswer: true, onVoicemail: true, maxAttempts: 3, delayMinutes: 1 },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const deadline = Date.now() + 240_000;
    while ((await runsOf(id)).length < 3) {
      if (Date.now() > deadline) throw new Error('the campaign did not continue as new twice');
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect((await rig.api('POST', `/campaigns/${id}/cancel`)).body.data.status).toBe('canceled');
    const ended = await waitForCampaign(rig, id, ['canceled'], 60_000);

    const runs = await runsOf(id);
    console.log(
      `10 000 contacts: ${runs.length} runs, events per run ${runs.map((r) => r.events).join(', ')}`,
    );
    for (const run of runs) {
      expect(run.events).toBeLessThan(10_000);
      expect(run.inputBytes).toBeLessThan(2_000);
    }
    // every contact called at most once, none lost: done, or left by the cancel
    const placed = rig.double.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'));
    expect(new Set(placed.map((r) => r.params.To)).size).toBe(placed.length);
    const calls = await callsOf(id);
    // each call the carrier was asked for is one of the campaign's; one it never heard of ended
    // unplaced (its placing's outcome unknown under the load, the carrier silent since), and is told
    const asked = new Set(
      placed.map((r) => new URL(String(r.params.StatusCallback)).searchParams.get('callId')),
    );
    expect([...asked].filter((callId) => !calls.some((c) => c.id === callId))).toEqual([]);
    const unplaced = calls.filter((c) => !asked.has(c.id));
    if (unplaced.length) console.log('calls the carrier never received:', JSON.stringify(unplaced));
    for (const call of unplaced)
      expect(call).toMatchObject({ status: 'failed', ended_reason: 'carrier_unreachable' });
    expect(calls.every((c) => c.status === 'failed')).toBe(true);
    expect(ended.progress).toMatchObject({ total: n, calls: calls.length, done: calls.length });
    expect(ended.progress.canceled).toBe(n - calls.length);
    expect(unplaced.length).toBeLessThan(5);
    expect(placed.length).toBeGreaterThan(1_500);
  }, 360_000);
});
