import { type ChaosRig, runChaos, startChaosRig } from '../support/chaos';
import { quietCutConnectionLogs } from '../support/db-proxy';

/**
 * Issue 26 item 7, at the tier's size (`npm run bench:chaos` runs it at 10 000 events × 5 webhooks):
 * events acknowledged by the API while worker processes are SIGKILLed, the Temporal server is
 * restarted and PostgreSQL refuses connections are all delivered to every webhook, and a second copy
 * a receiver gets is only ever a retry of that event's one delivery.
 */
describe('faults at volume (chaos)', () => {
  let rig: ChaosRig | undefined;
  afterAll(async () => {
    try {
      await rig?.close();
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('150 events × 3 webhooks through worker kills, a Temporal restart and a database outage: none lost', async () => {
    quietCutConnectionLogs();
    rig = await startChaosRig({ label: 'chaos', webhooks: 3, workers: 3 });
    const figures = await runChaos(rig, {
      events: 150,
      rate: 15,
      concurrency: 4,
      killEverySeconds: 3,
      maxKills: 2,
      temporalRestartAt: 4,
      outageAt: 6,
      outageSeconds: 3,
      drainSeconds: 120,
    });
    expect(figures).toMatchObject({
      acknowledged: 150,
      expected: 450,
      delivered: 450,
      pending: 0,
      lost: 0,
      foreignReceipts: 0,
      failedDeliveries: 0,
      kills: 2,
    });
    expect(figures.temporalDownSeconds).toBeGreaterThan(0);
    expect(figures.refusedAnswers).toBeGreaterThan(0); // the outage reached the API
  }, 240_000);
});
