import { type CampaignRig, contactNumber, startCampaignRig, waitForCampaign } from './support/campaigns';

const MINUTE_MS = 10; // a campaign day lasts 14.4 s
const hhmm = (minutes: number) => {
  const m = ((Math.floor(minutes) % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

/**
 * Calling hours on a short campaign clock (CAMPAIGN_MINUTE_MS=10: a campaign minute lasts 10 ms):
 * a window of 150 campaign minutes (1.5 s) that closes mid-campaign and reopens a campaign day
 * later (14.4 s); no call is placed while it is closed, and the campaign finishes in the next window.
 */
describe('campaign calling hours', () => {
  let rig: CampaignRig;
  beforeAll(async () => {
    rig = await startCampaignRig({ CAMPAIGN_MINUTE_MS: String(MINUTE_MS) });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('places calls only inside the window, across a closed night', async () => {
    rig.double.script({ outcome: 'answer', ringMs: 50, talkMs: 250, media: 'none' });
    const now = new Date();
    const nowMinute = now.getUTCHours() * 60 + now.getUTCMinutes() + now.getUTCSeconds() / 60;
    const callingHours = { start: hhmm(nowMinute - 1), end: hhmm(nowMinute + 149), timezone: 'UTC' };
    const n = 16;
    const created = await rig.api('POST', '/campaigns', {
      name: 'Night and day',
      phoneNumberId: rig.number.id,
      personaId: rig.personaId,
      contacts: Array.from({ length: n }, (_, i) => ({ to: contactNumber(7000 + i) })),
      concurrency: 2,
      callingHours,
      retry: { onBusy: false, onNoAnswer: false, onVoicemail: false, maxAttempts: 1, delayMinutes: 0 },
    });
    expect(created.status).toBe(201);
    const { id, createdAt } = created.body.data as { id: string; createdAt: string };
    const done = await waitForCampaign(rig, id, ['completed'], 120_000);
    expect(done.progress).toMatchObject({ total: n, done: n, calls: n });

    // the campaign clock: 6 000 times real time from the campaign's creation
    const anchor = Date.parse(createdAt);
    const campaignMinuteOfDay = (realMs: number) => {
      const t = new Date(anchor + ((realMs - anchor) * 60_000) / MINUTE_MS);
      return t.getUTCHours() * 60 + t.getUTCMinutes() + t.getUTCSeconds() / 60;
    };
    const [start, end] = [callingHours.start, callingHours.end].map(
      (h) => Number(h.slice(0, 2)) * 60 + Number(h.slice(3)),
    );
    const inside = (m: number) => (start! < end! ? m >= start! && m < end! : m >= start! || m < end!);

    const sql = rig.app.ctx.orm.em.fork().getConnection();
    const rows: { created_at: Date }[] = await sql.execute(
      `select created_at from calls where "to" like '+141520070%' or "to" like '+141520071%' order by created_at`,
    );
    expect(rows).toHaveLength(n);
    const placedAt = rows.map((r) => new Date(r.created_at).getTime());
    // every call was queued inside the window, on the campaign clock
    for (const at of placedAt)
      expect([new Date(at).toISOString(), inside(campaignMinuteOfDay(at))]).toEqual([
        new Date(at).toISOString(),
        true,
      ]);
    // ...and the carrier was asked within the same window (up to 300 ms, 30 campaign minutes, after it)
    for (const c of rig.double.calls)
      expect(inside(campaignMinuteOfDay(c.createdAt)) || inside(campaignMinuteOfDay(c.createdAt - 300))).toBe(
        true,
      );
    // the window closed mid-campaign: a night (over 10 s of real time) without a call, then more calls
    const gaps = placedAt.slice(1).map((at, i) => at - placedAt[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(10_000);
  }, 150_000);
});
