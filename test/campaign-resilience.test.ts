/**
 * @jest-environment ./test/support/native-arrays-environment.js
 */

import type { ChildProcess } from 'node:child_process';
import { type CampaignRig, contactNumber, startCampaignRig, waitForCampaign } from './support/campaigns';
import { TEST_ENV } from './support/env';
import { createIsolatedDatabase } from './support/isolated-db';
import { spawnWorker, stopProcess, workerProcessEnv } from './support/resilience';

/**
 * A worker killed in the middle of a campaign (issue 42): the campaign's workflow, its steps and its
 * calls' workflows run in a worker process that is SIGKILLed once some calls are done and others
 * under way, then replaced. Every contact is called exactly once: none twice, none skipped.
 */
describe('a worker killed mid-campaign', () => {
  it('calls every contact once', async () => {
    const label = 'cmpkill';
    const db = await createIsolatedDatabase(label);
    const taskQueue = `vp-${label}-${process.pid}`;
    let rig: CampaignRig | undefined;
    let first: ChildProcess | undefined;
    let second: ChildProcess | undefined;
    try {
      rig = await startCampaignRig(
        { CAMPAIGN_MINUTE_MS: '100' },
        { worker: false, taskQueue, databaseUrl: db.url },
      );
      const workerEnv = workerProcessEnv(
        {
          NODE_ENV: 'test',
          DATABASE_URL: db.url,
          TEMPORAL_ADDRESS: TEST_ENV.temporalAddress(),
          TEMPORAL_TASK_QUEUE: taskQueue,
          TWILIO_API_BASE_URL: rig.double.baseUrl,
          PUBLIC_URL: rig.app.baseUrl,
          CARRIER_TIMEOUT_MS: '3000',
          CALL_UNCONFIRMED_WAIT_S: '5',
          CAMPAIGN_MINUTE_MS: '100',
        },
        label,
      );
      first = spawnWorker(workerEnv);
      rig.double.script({ outcome: 'answer', ringMs: 50, talkMs: 700, media: 'none' });
      const n = 40;
      const created = await rig.api('POST', '/campaigns', {
        name: 'Survives',
        phoneNumberId: rig.number.id,
        personaId: rig.personaId,
        contacts: Array.from({ length: n }, (_, i) => ({ to: contactNumber(8000 + i) })),
        concurrency: 4,
        callingHours: { start: '00:00', end: '23:59', timezone: 'UTC' },
        retry: { onBusy: true, onNoAnswer: true, onVoicemail: false, maxAttempts: 2, delayMinutes: 1 },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      // some calls done, some under way: the worker dies, another takes over (the calls of a wave
      // end together, and the next wave starts a moment later: the kill waits for one under way)
      const ended = () => rig!.double.calls.filter((c) => c.endedAt).length;
      const underWay = () => rig!.double.calls.filter((c) => !c.endedAt).length;
      while (ended() < 10 || underWay() === 0) await new Promise((r) => setTimeout(r, 20));
      const underWayAtKill = underWay();
      await stopProcess(first, 'SIGKILL');
      first = undefined;
      second = spawnWorker(workerEnv);

      const done = await waitForCampaign(rig, id, ['completed'], 240_000);
      expect(done.outcomes).toMatchObject({ answered: n });
      expect(done.progress).toMatchObject({ total: n, done: n, calls: n });
      const perNumber = new Map<string, number>();
      for (const c of rig.double.calls) perNumber.set(c.setup.to, (perNumber.get(c.setup.to) ?? 0) + 1);
      expect([...perNumber.values()].every((count) => count === 1)).toBe(true);
      expect(perNumber.size).toBe(n);
      const sql = rig.app.ctx.orm.em.fork().getConnection();
      expect((await sql.execute('select count(*)::int as n from calls'))[0].n).toBe(n);
      expect(underWayAtKill).toBeGreaterThan(0);
      const events = await sql.execute(
        `select count(*)::int as n from events where type = 'campaign.completed'`,
      );
      expect(events[0].n).toBe(1);
    } finally {
      await stopProcess(first, 'SIGKILL');
      await stopProcess(second, 'SIGTERM');
      await rig?.stop();
      await db.drop();
    }
  }, 300_000);
});
