import {
  ALWAYS_OPEN,
  allContacts,
  type CampaignRig,
  contactNumber,
  contacts,
  maxOverlap,
  startCampaignRig,
  waitForCampaign,
} from './support/campaigns';

/**
 * Outbound campaigns (issue 42 item 4) against the Twilio double: the concurrency cap, each contact
 * called once per attempt, retries per the plan, the refusals, pause, resume and cancel. A campaign
 * minute lasts 100 ms here (CAMPAIGN_MINUTE_MS), so a retry's delay of 2 minutes is 200 ms.
 */
describe('campaigns', () => {
  let rig: CampaignRig;
  beforeAll(async () => {
    rig = await startCampaignRig({ CAMPAIGN_MINUTE_MS: '100' });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    name: 'Renewals',
    phoneNumberId: rig.number.id,
    personaId: rig.personaId,
    contacts: contacts(3),
    concurrency: 2,
    callingHours: ALWAYS_OPEN,
    retry: { onBusy: true, onNoAnswer: true, onVoicemail: false, maxAttempts: 2, delayMinutes: 2 },
    ...over,
  });

  it('refuses a bad request naming the field, and creates nothing', async () => {
    const refused = async (over: Record<string, unknown>) => {
      const res = await rig.api('POST', '/campaigns', body(over));
      expect(res.status).toBe(400);
      return (res.body.validationErrors as string[]).join('\n');
    };
    expect(await refused({ concurrency: 51 })).toMatch(/^concurrency: /m);
    expect(await refused({ concurrency: 0 })).toMatch(/^concurrency: /m);
    expect(await refused({ callingHours: { ...ALWAYS_OPEN, timezone: 'Mars/Olympus' } })).toMatch(
      /^callingHours\.timezone: must be an IANA time zone/m,
    );
    expect(await refused({ callingHours: { ...ALWAYS_OPEN, start: '25:00' } })).toMatch(
      /^callingHours\.start: /m,
    );
    expect(await refused({ contacts: [] })).toMatch(/^contacts: /m);
    const tooMany = Array.from({ length: 10_001 }, () => ({ to: '+14155550150' }));
    expect(await refused({ contacts: tooMany })).toMatch(/^contacts: /m);
    expect(await refused({ contacts: [{ to: '+14155550150' }, { to: '12345' }] })).toMatch(
      /^contacts\.1\.to: /m,
    );
    // a premium-rate destination, refused by the calls area's own check, named by its place
    expect(await refused({ contacts: [{ to: '+14155550150' }, { to: '+19005550123' }] })).toMatch(
      /^contacts\.1\.to: is a premium-rate number/m,
    );
    expect(
      await refused({
        retry: { onBusy: true, onNoAnswer: true, onVoicemail: false, maxAttempts: 0, delayMinutes: 1 },
      }),
    ).toMatch(/^retry\.maxAttempts: /m);
    const unknown = await rig.api('POST', '/campaigns', body({ phoneNumberId: 'pn_doesnotexist' }));
    expect(unknown.status).toBe(404);
    expect((await rig.api('GET', '/campaigns')).body.pagination.total).toBe(0);
  });

  it('200 contacts at concurrency 5: never more than 5 calls at once, each called once per attempt, retried per the plan', async () => {
    const n = 200;
    // per contact: i % 10 == 1 busy then answered, == 2 never answers, == 3 fails; the rest answer
    const answer = { outcome: 'answer' as const, ringMs: 50, talkMs: 150, media: 'none' as const };
    rig.double.script(answer);
    for (let i = 0; i < n; i++) {
      if (i % 10 === 1) rig.double.script([{ outcome: 'busy', ringMs: 50 }, answer], contactNumber(i));
      if (i % 10 === 2) rig.double.script({ outcome: 'no-answer', ringMs: 50 }, contactNumber(i));
      if (i % 10 === 3) rig.double.script({ outcome: 'failed', ringMs: 50 }, contactNumber(i));
    }
    const created = await rig.api('POST', '/campaigns', body({ contacts: contacts(n), concurrency: 5 }));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(/^cmp_/), status: 'running' });
    const id = created.body.data.id as string;

    const done = await waitForCampaign(rig, id, ['completed'], 240_000);
    expect(done.outcomes).toEqual({ answered: 160, busy: 0, 'no-answer': 20, voicemail: 0, failed: 20 });
    expect(done.progress).toMatchObject({ total: n, done: n, calling: 0, pending: 0, calls: n + 40 });

    const placed = rig.double.calls.filter((c) => c.setup.direction === 'outbound-api');
    expect(placed).toHaveLength(n + 40);
    expect(
      maxOverlap(placed.map((c) => ({ start: c.createdAt, end: c.endedAt ?? Date.now() }))),
    ).toBeLessThanOrEqual(5);
    const perNumber = new Map<string, number>();
    for (const c of placed) perNumber.set(c.setup.to, (perNumber.get(c.setup.to) ?? 0) + 1);
    for (let i = 0; i < n; i++)
      expect([i, perNumber.get(contactNumber(i))]).toEqual([i, i % 10 === 1 || i % 10 === 2 ? 2 : 1]);

    const list = await allContacts(rig, id);
    const callIds = list.flatMap((c) => c.attempts.map((a: { callId: string }) => a.callId));
    expect(new Set(callIds).size).toBe(n + 40);
    expect(list[1]).toMatchObject({
      status: 'done',
      outcome: 'answered',
      attempts: [
        { attempt: 1, outcome: 'busy', callId: expect.stringMatching(/^call_/) },
        { attempt: 2, outcome: 'answered' },
      ],
    });
    expect(list[2]).toMatchObject({
      outcome: 'no-answer',
      attempts: [{ outcome: 'no-answer' }, { outcome: 'no-answer' }],
    });
    expect(list[3]).toMatchObject({ outcome: 'failed', attempts: [{ outcome: 'failed' }] });
    // the retry came after the plan's delay (2 campaign minutes: 200 ms) from the first attempt's end
    const busy = placed.filter((c) => c.setup.to === contactNumber(1));
    expect(busy[1]!.createdAt - busy[0]!.endedAt!).toBeGreaterThanOrEqual(150);

    const call = await rig.api('GET', `/calls/${list[0].attempts[0].callId}`);
    expect(call.body.data).toMatchObject({
      status: 'completed',
      direction: 'outbound',
      to: contactNumber(0),
    });
    const sql = rig.app.ctx.orm.em.fork().getConnection();
    // this campaign's (the database is shared with other test files' campaigns)
    const events = await sql.execute(
      `select payload from events where type = 'campaign.completed' and payload::jsonb->'data'->>'campaignId' = ?`,
      [id],
    );
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data).toMatchObject({
      campaignId: id,
      status: 'completed',
      outcomes: done.outcomes,
    });
    // each call told the campaign it ended before recording its end (its slot is taken again
    // sooner), and the campaign still ended only after every call's end was recorded
    const history = await rig.app.ctx.temporal.workflow.getHandle(id).fetchHistory();
    const told = (history.events ?? []).filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'campaignCallEnded',
    );
    expect(told).toHaveLength(n + 40);
    const [order] = await sql.execute(
      `select max(created_at) filter (where type = 'call.ended') as last_call_end,
              max(created_at) filter (where type = 'campaign.completed') as completed
         from events where type in ('call.ended', 'campaign.completed')
          and payload::jsonb->'data'->>(case when type = 'call.ended' then 'callId' else 'campaignId' end)
              = any(string_to_array(?, ','))`,
      [[...callIds, id].join(',')],
    );
    expect(new Date(order.completed).getTime()).toBeGreaterThanOrEqual(
      new Date(order.last_call_end).getTime(),
    );
    rig.double.script({ outcome: 'answer' });
  }, 300_000);

  it('pause places nothing until resumed; cancel places nothing more and hangs up no one', async () => {
    rig.double.script({ outcome: 'answer', ringMs: 50, talkMs: 600, media: 'none' });
    const created = await rig.api(
      'POST',
      '/campaigns',
      body({
        contacts: contacts(40).map((c) => ({ to: contactNumber(5000 + Number(c.variables.n)) })),
        concurrency: 2,
      }),
    );
    const id = created.body.data.id as string;
    const sql = rig.app.ctx.orm.em.fork().getConnection();
    const callsSince = async (at: Date) =>
      (
        await sql.execute(
          `select count(*)::int as n from calls where created_at > ? and "to" like '+14152005%'`,
          [at],
        )
      )[0].n;

    while ((await rig.api('GET', `/campaigns/${id}`)).body.data.progress.calls < 4)
      await new Promise((r) => setTimeout(r, 100));
    const paused = await rig.api('POST', `/campaigns/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.data.status).toBe('paused');
    const pausedAt = new Date();
    await new Promise((r) => setTimeout(r, 2000));
    expect(await callsSince(pausedAt)).toBe(0);
    expect((await rig.api('GET', `/campaigns/${id}`)).body.data).toMatchObject({
      status: 'paused',
      progress: { calling: 0 },
    });

    const resumed = await rig.api('POST', `/campaigns/${id}/resume`);
    expect(resumed.body.data.status).toBe('running');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await callsSince(pausedAt)).toBeGreaterThan(0);

    const canceled = await rig.api('POST', `/campaigns/${id}/cancel`);
    expect(canceled.body.data.status).toBe('canceled');
    const canceledAt = new Date();
    const ended = await waitForCampaign(rig, id, ['canceled'], 30_000);
    expect(await callsSince(canceledAt)).toBe(0);
    expect(ended.progress.canceled).toBeGreaterThan(0);
    expect(ended.progress.done + ended.progress.canceled).toBe(40);
    // the calls under way at the cancel ended by the callee's hang-up, none by the platform's
    const hangups = rig.double.requests.filter((r) => r.method === 'POST' && /\/Calls\/CA/.test(r.path));
    expect(hangups).toEqual([]);
    // ended campaigns: a pause is a conflict, a second cancel answers it as it is
    expect((await rig.api('POST', `/campaigns/${id}/pause`)).status).toBe(409);
    expect((await rig.api('POST', `/campaigns/${id}/cancel`)).body.data.status).toBe('canceled');
    const listed = await rig.api('GET', '/campaigns?status=canceled');
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
  }, 120_000);
});
