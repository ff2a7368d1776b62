import { type CallsBench, startCallsBench } from './support/calls';
import { eventually } from './support/receiver';
import { call } from './support/test-app';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';

/**
 * Outbound calls against the Twilio double (test/support/twilio-double.ts): its Calls.json under
 * basic auth, and its status callbacks signed by the official `twilio` package, as Twilio posts
 * them (for the events the platform asked for), to the URL the platform gave. Only callees that do not answer here:
 * an answered call opens the media stream, which is the media transport's.
 */
let double: TwilioDouble;
let bench: CallsBench;
beforeAll(async () => {
  double = await startTwilioDouble();
  bench = await startCallsBench(double);
});
afterAll(async () => {
  await bench?.stop();
  await double?.close();
});

const api = (method: string, path: string, body?: unknown) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

const ended = (id: string, status: string) =>
  eventually(async () => {
    const c = (await api('GET', `/calls/${id}`)).body.data;
    return c.status === status ? c : undefined;
  });

describe('calls through the Twilio double', () => {
  it.each([
    ['busy', 'busy'],
    ['no-answer', 'no_answer'],
    ['failed', 'failed'],
  ] as const)(
    'a callee that is %s: every signed callback taken (204), the call ends so',
    async (outcome, reason) => {
      const to = `+1415555${String(200 + ['busy', 'no-answer', 'failed'].indexOf(outcome)).padStart(4, '0')}`;
      double.script({ outcome, ringMs: 100 }, to);
      const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to });
      expect(res.status).toBe(201);
      const carrierCall = await double.waitForCall((c) => c.setup.to === to);
      const call = await ended(res.body.data.id, outcome);
      expect(call).toMatchObject({ endedReason: reason, carrierCallId: carrierCall.sid, durationS: 0 });
      expect(call.timeline.map((t: { status: string }) => t.status)).toEqual(['queued', 'ringing', outcome]);
      await eventually(
        async () => carrierCall.callbacks.length === 2 && carrierCall.callbacks.every((c) => c.status),
      );
      // the events the platform asked for (StatusCallbackEvent): not `initiated`
      expect(carrierCall.callbacks.map((c) => [c.event, c.status])).toEqual([
        ['ringing', 204],
        ['completed', 204],
      ]);
    },
  );

  it('a hang-up while it rings: the double cancels the call, and it ends canceled by hangup', async () => {
    const to = '+14155550210';
    double.script({ outcome: 'answer', ringMs: 5_000 }, to);
    const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to });
    const id = res.body.data.id as string;
    await ended(id, 'ringing');
    expect((await api('POST', `/calls/${id}/hangup`)).status).toBe(200);
    expect(await ended(id, 'canceled')).toMatchObject({ endedReason: 'hangup' });
    const carrierCall = await double.waitForCall((c) => c.setup.to === to);
    expect(await carrierCall.ended).toBe('canceled');
  });
});
