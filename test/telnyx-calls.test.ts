import { type CallsBench, startCallsBench } from './support/calls';
import { eventually } from './support/receiver';
import { startTelnyxDouble, type TelnyxDouble } from './support/telnyx-double';
import { addTelnyxNumber } from './support/telnyx-double/bench';
import { call } from './support/test-app';

/**
 * Calls through the Telnyx double (test/support/telnyx-double.ts): its Call Control API under
 * Bearer auth, and its webhooks signed with a real Ed25519 key pair, as Telnyx posts them, to the
 * URL the platform gave (an outbound call's `webhook_url`, the number's `inboundUrl`).
 */
let double: TelnyxDouble;
let bench: CallsBench;
let number: Awaited<ReturnType<typeof addTelnyxNumber>>;
beforeAll(async () => {
  double = await startTelnyxDouble();
  bench = await startCallsBench(undefined, { TELNYX_API_BASE_URL: double.baseUrl });
  number = await addTelnyxNumber(bench, double);
}, 120_000);
afterAll(async () => {
  await double?.close();
  await bench?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

const reaches = (id: string, status: string) =>
  eventually(async () => {
    const c = (await api('GET', `/calls/${id}`)).body.data;
    return c.status === status ? c : undefined;
  });

const statuses = (c: { timeline: { status: string }[] }) => c.timeline.map((t) => t.status);

describe('outbound calls through the Telnyx double', () => {
  it('placed once with Call Control v2, answered onto its media stream, completed when the callee hangs up', async () => {
    const to = '+14155550301';
    double.script({ outcome: 'answer', ringMs: 100 }, to);
    const res = await api('POST', '/calls', { phoneNumberId: number.id, to });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const carrierCall = await double.waitForCall((c) => c.setup.to === to);
    const dials = double.requests.filter((r) => r.path === '/v2/calls');
    expect(dials).toHaveLength(1);
    expect(dials[0]).toMatchObject({
      method: 'POST',
      authorized: true,
      body: {
        connection_id: double.connectionId,
        to,
        from: number.number,
        webhook_url: `${number.statusCallbackUrl}?callId=${id}`,
        stream_url: expect.stringMatching(
          new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/api/v2/telephony/telnyx/media/${id}$`),
        ),
        stream_track: 'inbound_track',
        stream_bidirectional_mode: 'rtp',
        stream_bidirectional_codec: 'PCMU',
        client_state: expect.any(String),
      },
    });
    // the stream's start hands back the client state: the call token, taken once; the agent greets
    const stream = await carrierCall.waitForStream();
    await eventually(
      async () => stream.received.marks.some((m) => m.echoedAt !== undefined) || undefined,
      30_000,
    );
    const answered = await reaches(id, 'in-progress');
    expect(answered).toMatchObject({
      carrierCallId: carrierCall.callControlId,
      sessionId: expect.stringMatching(/^sess_/),
    });
    await carrierCall.hangUp();
    const ended = await reaches(id, 'completed');
    expect(ended).toMatchObject({ endedReason: 'completed' });
    expect(statuses(ended)).toEqual(['queued', 'in-progress', 'completed']);
    expect(carrierCall.webhooks.map((w) => [w.eventType, w.status])).toEqual([
      ['call.initiated', 204],
      ['call.answered', 204],
      ['streaming.started', 204],
      ['streaming.stopped', 204],
      ['call.hangup', 204],
    ]);
    expect(stream.received.invalid).toHaveLength(0);
    const session = (await api('GET', `/sessions/${ended.sessionId}`)).body.data;
    await eventually(
      async () =>
        (await api('GET', `/sessions/${ended.sessionId}`)).body.data.status === 'ended' || undefined,
    );
    expect(session.id).toBe(ended.sessionId);
    expect(double.requests.filter((r) => r.path === '/v2/calls')).toHaveLength(1);
  }, 60_000);

  it.each([
    ['busy', 'busy', 'busy'],
    ['no-answer', 'no-answer', 'no_answer'],
    ['reject', 'failed', 'failed'],
  ] as const)(
    'a callee that is %s: call.hangup says why, and the call ends %s',
    async (outcome, status, reason) => {
      const to = `+1415555${String(310 + ['busy', 'no-answer', 'reject'].indexOf(outcome)).padStart(4, '0')}`;
      double.script({ outcome, ringMs: 100 }, to);
      const res = await api('POST', '/calls', { phoneNumberId: number.id, to });
      const carrierCall = await double.waitForCall((c) => c.setup.to === to);
      const ended = await reaches(res.body.data.id, status);
      expect(ended).toMatchObject({ endedReason: reason, carrierCallId: carrierCall.callControlId });
      expect(statuses(ended)).toEqual(['queued', status]);
      await eventually(
        async () =>
          (carrierCall.webhooks.length === 2 && carrierCall.webhooks.every((w) => w.status)) || undefined,
      );
      expect(carrierCall.webhooks.map((w) => [w.eventType, w.status])).toEqual([
        ['call.initiated', 204],
        ['call.hangup', 204],
      ]);
    },
  );

  it('a hang-up while it rings: hung up through Call Control, and it ends canceled by hangup', async () => {
    const to = '+14155550320';
    double.script({ outcome: 'answer', ringMs: 5_000 }, to);
    const res = await api('POST', '/calls', { phoneNumberId: number.id, to });
    const id = res.body.data.id as string;
    const carrierCall = await double.waitForCall((c) => c.setup.to === to);
    await eventually(async () => carrierCall.webhooks[0]?.status === 204 || undefined);
    await eventually(async () => (await api('GET', `/calls/${id}`)).body.data.carrierCallId || undefined);
    expect((await api('POST', `/calls/${id}/hangup`)).status).toBe(200);
    expect(await reaches(id, 'canceled')).toMatchObject({ endedReason: 'hangup' });
    expect(await carrierCall.ended).toBe('originator_cancel');
    const hangups = double.requests.filter((r) => r.path.endsWith('/actions/hangup'));
    expect(hangups).toEqual([
      expect.objectContaining({
        path: `/v2/calls/${encodeURIComponent(carrierCall.callControlId)}/actions/hangup`,
        authorized: true,
      }),
    ]);
  });
});

describe('Telnyx webhooks are signed', () => {
  const inboundCalls = async () => (await api('GET', '/calls?direction=inbound')).body.data.length as number;

  it.each(['wrong', 'missing', 'stale'] as const)(
    'an incoming call whose call.initiated is %s-signed is refused (403): no call, nothing answered',
    async (signing) => {
      const before = await inboundCalls();
      double.webhooks.signing = signing;
      try {
        const ringing = await double.dial(number.inboundUrl, { from: '+15551239000', to: number.number });
        expect(ringing.webhooks.map((w) => w.status)).toEqual([403]);
        expect(JSON.parse(ringing.webhooks[0]!.response!)).toMatchObject({ code: 'FORBIDDEN' });
        expect(ringing.commands).toHaveLength(0);
        await ringing.hangUp();
      } finally {
        double.webhooks.signing = 'valid';
      }
      expect(await inboundCalls()).toBe(before);
    },
  );

  it('a status webhook without a valid signature changes nothing (403)', async () => {
    const to = '+14155550330';
    double.script({ outcome: 'answer', ringMs: 3_000 }, to);
    const res = await api('POST', '/calls', { phoneNumberId: number.id, to });
    const id = res.body.data.id as string;
    const carrierCall = await double.waitForCall((c) => c.setup.to === to);
    await eventually(async () => carrierCall.webhooks[0]?.status === 204 || undefined);
    double.webhooks.signing = 'wrong';
    const forged = await double.webhooks.post(`${number.statusCallbackUrl}?callId=${id}`, 'call.hangup', {
      ...carrierCall.payload(),
      hangup_cause: 'user_busy',
    });
    double.webhooks.signing = 'valid';
    expect(forged.status).toBe(403);
    expect((await api('GET', `/calls/${id}`)).body.data.status).toBe('queued');
    await api('POST', `/calls/${id}/hangup`);
    await reaches(id, 'canceled');
  });
});

describe('incoming Telnyx calls a number cannot take', () => {
  it('a number without a persona rejects the call through Call Control, creating nothing', async () => {
    const other = await addTelnyxNumber(bench, double);
    const personaId = (await api('GET', `/phone-numbers/${other.id}`)).body.data.personaId;
    const gone = await call(bench.app.baseUrl, 'DELETE', `/api/v1/developers/personas/${personaId}`, {
      token: bench.dev.token,
    });
    expect(gone.status).toBe(200);
    const before = (await api('GET', '/calls?direction=inbound')).body.data.length;
    const ringing = await double.dial(other.inboundUrl, { from: '+15551239100', to: other.number });
    expect(ringing.webhooks[0]?.status).toBe(204);
    expect(ringing.commands).toEqual([
      { action: 'reject', body: { cause: 'CALL_REJECTED', command_id: ringing.webhooks[0]!.eventId } },
    ]);
    expect(await ringing.ended).toBe('call_rejected');
    // its call.hangup finds no call, and is taken all the same
    await eventually(async () => ringing.webhooks.at(-1)?.status === 204 || undefined);
    expect(ringing.webhooks.map((w) => w.eventType)).toEqual(['call.initiated', 'call.hangup']);
    expect((await api('GET', '/calls?direction=inbound')).body.data).toHaveLength(before);
  });
});
