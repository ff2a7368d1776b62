import { advanceCampaign } from '../src/campaigns/campaign-steps';
import { insertQueuedCalls } from '../src/telephony/calls/queued-calls';
import { type CampaignRig, contactNumber, startCampaignRig } from './support/campaigns';

/**
 * A campaign's step run again after an attempt that committed and was lost (issue 42: its worker
 * killed before the workflow heard the answer). The workflow, replayed with the signals that came
 * meanwhile, asks the same step (its stepId) with another `want`: the step answers the calls that
 * attempt claimed, claims none besides, and does not say the contacts ran out. No worker runs the
 * campaign's workflow here: the steps are called directly, as its activity would.
 */
describe('a campaign step run again', () => {
  let rig: CampaignRig;
  let campaignId = '';
  const step = (stepId: string, want: number) =>
    advanceCampaign(
      rig.app.ctx,
      { campaignId, stepId, outcomes: [], want, now: Date.now(), claimUntil: null },
      insertQueuedCalls,
    );

  beforeAll(async () => {
    rig = await startCampaignRig({}, { worker: false });
    const created = await rig.api('POST', '/campaigns', {
      name: 'Steps',
      phoneNumberId: rig.number.id,
      personaId: rig.personaId,
      contacts: Array.from({ length: 10 }, (_, i) => ({ to: contactNumber(9100 + i) })),
      concurrency: 4,
      callingHours: { start: '00:00', end: '23:59', timezone: 'UTC' },
      retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 1 },
    });
    expect(created.status).toBe(201);
    campaignId = created.body.data.id;
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('answers the calls its lost attempt claimed, whatever it wants now, and never says the contacts ran out', async () => {
    const first = await step('run-a:0', 2);
    expect(first.calls).toHaveLength(2);
    expect(first.exhausted).toBe(false);
    // replayed with two calls' ends heard meanwhile, the step wants more: the same two, not exhausted
    const more = await step('run-a:0', 4);
    expect(more.calls).toEqual(first.calls);
    expect(more.exhausted).toBe(false);
    // replayed with a pause heard meanwhile, it wants none: still the two it committed, to be started
    expect((await step('run-a:0', 0)).calls).toEqual(first.calls);
    // the next step claims the rest as usual
    const next = await step('run-a:1', 4);
    expect(next.calls.map((c) => c.index)).toEqual([2, 3, 4, 5]);
    const knex = rig.app.ctx.orm.em.getConnection().getKnex();
    const calling = await knex('campaign_contacts').where({ campaign_id: campaignId, status: 'calling' });
    expect(calling).toHaveLength(6);
  });
});
