import { recordedCallEnds } from '../src/telephony/calls/queued-calls';
import type { CarriedCall } from '../workflows/campaign-calls';
import {
  ALWAYS_OPEN,
  type CampaignRig,
  contactNumber,
  contacts,
  maxOverlap,
  startCampaignRig,
  waitForCampaign,
} from './support/campaigns';

/**
 * A campaign's run continues as new with its calls under way (issue 42): it hands them to the next
 * run, whose slots they keep until they say they ended, instead of letting them end first with their
 * slots idle. CAMPAIGN_EVENTS_PER_RUN is 40 here, so 30 calls at concurrency 5 roll over several
 * times, each time with calls talking.
 */
describe('a campaign that continues as new with calls under way', () => {
  let rig: CampaignRig;
  beforeAll(async () => {
    rig = await startCampaignRig({ CAMPAIGN_EVENTS_PER_RUN: '40' });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  /** Each run, first to last: the calls it was handed and the calls whose end it heard. */
  async function runsOf(id: string) {
    const temporal = rig.app.ctx.temporal;
    const runs: { carried: CarriedCall[]; canceled: boolean; heard: string[] }[] = [];
    let runId: string | undefined = (await temporal.workflow.getHandle(id).describe()).runId;
    while (runId) {
      const current: string = runId;
      const events = (await temporal.workflow.getHandle(id, current).fetchHistory()).events ?? [];
      const started = events[0]?.workflowExecutionStartedEventAttributes;
      const data = started?.input?.payloads?.[0]?.data;
      const input = data ? JSON.parse(Buffer.from(data).toString('utf8')) : {};
      const heard = events.flatMap((e) => {
        const signal = e.workflowExecutionSignaledEventAttributes;
        const payload = signal?.signalName === 'campaignCallEnded' && signal.input?.payloads?.[0]?.data;
        return payload ? [JSON.parse(Buffer.from(payload).toString('utf8')).callId as string] : [];
      });
      runs.push({ carried: input.carried?.calls ?? [], canceled: input.carried?.canceled === true, heard });
      const previous: string | null | undefined = started?.continuedExecutionRunId;
      runId = previous ?? undefined;
    }
    return runs.reverse();
  }

  it('hands its calls under way to the next run, which hears their ends: none lost, none called twice', async () => {
    const n = 30;
    rig.double.script({ outcome: 'answer', ringMs: 50, talkMs: 600, media: 'none' });
    const created = await rig.api('POST', '/campaigns', {
      name: 'Carried over',
      phoneNumberId: rig.number.id,
      personaId: rig.personaId,
      contacts: contacts(n),
      concurrency: 5,
      callingHours: ALWAYS_OPEN,
      retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 0 },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const done = await waitForCampaign(rig, id, ['completed'], 120_000);
    expect(done.outcomes).toMatchObject({ answered: n, failed: 0 });
    expect(done.progress).toMatchObject({ total: n, done: n, calling: 0, pending: 0, calls: n });

    const placed = rig.double.calls.filter((c) => c.setup.direction === 'outbound-api');
    expect(placed).toHaveLength(n);
    expect(new Set(placed.map((c) => c.setup.to))).toEqual(new Set(contacts(n).map((c) => c.to)));
    expect(
      maxOverlap(placed.map((c) => ({ start: c.createdAt, end: c.endedAt ?? Date.now() }))),
    ).toBeLessThanOrEqual(5);

    const runs = await runsOf(id);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // a run handed calls under way to the next, and that run heard their ends (the one before
    // did not: it had continued as new while they talked)
    const handedOn = runs.slice(1).filter((r) => r.carried.length > 0);
    expect(handedOn.length).toBeGreaterThan(0);
    for (const run of handedOn) {
      const i = runs.indexOf(run);
      for (const call of run.carried) {
        expect(runs[i - 1]!.heard).not.toContain(call.callId);
        expect(runs.slice(i).some((r) => r.heard.includes(call.callId))).toBe(true);
      }
    }
    // every call told a run its end once
    const heard = runs.flatMap((r) => r.heard);
    expect(heard).toHaveLength(n);
    expect(new Set(heard).size).toBe(n);

    // campaign.completed still follows every call.ended (the last run waits for its carried calls' records)
    const sql = rig.app.ctx.orm.em.fork().getConnection();
    const [order] = await sql.execute(
      `select max(e.created_at) filter (where e.type = 'call.ended') as last_call_end,
              max(e.created_at) filter (where e.type = 'campaign.completed') as completed
         from events e
        where (e.type = 'call.ended' and e.payload::jsonb->'data'->>'callId' in (
                 select a ->> 'callId' from campaign_contacts, jsonb_array_elements(attempts) a
                  where campaign_id = ?))
           or (e.type = 'campaign.completed' and e.payload::jsonb->'data'->>'campaignId' = ?)`,
      [id, id],
    );
    // the carried calls' recorded ends, as the run looks them up when their word is lost
    const ends = await recordedCallEnds(
      rig.app.ctx.orm.em.getConnection().getKnex(),
      runs.flatMap((r) => r.carried.map((c) => c.callId)),
    );
    expect(ends.length).toBe(handedOn.flatMap((r) => r.carried).length);
    for (const end of ends) expect(end).toMatchObject({ status: 'completed' });
    expect(order.last_call_end).not.toBeNull();
    expect(new Date(order.completed).getTime()).toBeGreaterThanOrEqual(
      new Date(order.last_call_end).getTime(),
    );
  }, 180_000);

  it('canceled with calls under way, continues as new still canceled and ends once they have', async () => {
    // 20 calls at once, ending 150 ms apart from 1.5 s on: each end its own workflow tasks, the
    // run's history passes 40 events while they end after the cancel
    for (let i = 0; i < 40; i++)
      rig.double.script(
        { outcome: 'answer', ringMs: 50, talkMs: 1500 + 150 * i, media: 'none' },
        contactNumber(i),
      );
    const before = rig.double.calls.length;
    const created = await rig.api('POST', '/campaigns', {
      name: 'Canceled, carried over',
      phoneNumberId: rig.number.id,
      personaId: rig.personaId,
      contacts: contacts(40),
      concurrency: 20,
      callingHours: ALWAYS_OPEN,
      retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 0 },
    });
    const id = created.body.data.id as string;
    const deadline = Date.now() + 30_000;
    while (rig.double.calls.length - before < 20) {
      if (Date.now() > deadline) throw new Error('the campaign did not place its first 20 calls');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await rig.api('POST', `/campaigns/${id}/cancel`)).body.data.status).toBe('canceled');
    // a call that ended before the cancel may have been followed by another: none after it
    const placed = rig.double.calls.length - before;
    const ended = await waitForCampaign(rig, id, ['canceled'], 60_000);
    expect(rig.double.calls.length - before).toBe(placed);
    expect(ended.progress).toMatchObject({ total: 40, done: placed, canceled: 40 - placed, calling: 0 });
    const runs = await runsOf(id);
    // the cancel's run continued as new with calls under way, and the next run was canceled too
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.slice(1).some((r) => r.carried.length > 0 && r.canceled)).toBe(true);
  }, 120_000);
});
