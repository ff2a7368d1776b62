import {
  addNumber,
  type CallsBench,
  setNumberPersona,
  signedPost,
  startCallsBench,
  statusCallback,
} from './support/calls';
import { completeManifest } from './support/personas';
import { eventually } from './support/receiver';
import { call, newDeveloper } from './support/test-app';

let bench: CallsBench;
beforeAll(async () => {
  bench = await startCallsBench();
});
afterAll(() => bench?.stop());

const api = (method: string, path: string, body?: unknown, key = bench.dev.testKey) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

const place = (body: Record<string, unknown> = {}, key?: string) =>
  api('POST', '/calls', { phoneNumberId: bench.number.id, to: '+14155550123', ...body }, key);

async function callOf(id: string, key?: string) {
  return (await api('GET', `/calls/${id}`, undefined, key)).body.data;
}

/** Waits for the call's carrier id: the workflow placed it. */
const placed = (id: string) => eventually<string>(async () => (await callOf(id)).carrierCallId ?? undefined);

describe('calls (docs/api-contract.md "Calls")', () => {
  it('places a call: 201 queued, one Calls.json with the stream TwiML and the signed status URL', async () => {
    const before = bench.stub.placed.length;
    const res = await place({ variables: { name: 'Ada' }, maxDurationS: 120 });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({
      id: expect.stringMatching(/^call_/),
      status: 'queued',
      direction: 'outbound',
      from: bench.number.number,
      to: '+14155550123',
      phoneNumberId: bench.number.id,
      sessionId: null,
      carrierCallId: null,
      endedReason: null,
      durationS: null,
    });
    expect(created.timeline).toEqual([{ status: 'queued', at: expect.any(String) }]);
    const sid = await placed(created.id);
    expect(bench.stub.placed.length).toBe(before + 1);
    const request = bench.stub.placed.at(-1)!;
    expect(request.form.get('To')).toBe('+14155550123');
    expect(request.form.get('From')).toBe(bench.number.number);
    const media = `${bench.app.baseUrl.replace('http', 'ws')}/api/v2/telephony/twilio/media/${created.id}`;
    expect(request.form.get('Twiml')).toContain(
      `<Connect><Stream url="${media}"><Parameter name="callToken"`,
    );
    expect(request.form.get('StatusCallback')).toBe(
      `${bench.app.baseUrl}/api/v2/telephony/twilio/status/${bench.number.id}?callId=${created.id}`,
    );
    expect(request.form.getAll('StatusCallbackEvent')).toEqual(['ringing', 'answered', 'completed']);
    expect(request.form.get('StatusCallbackMethod')).toBe('POST');
    expect(request.authorization).toMatch(/^Basic /);
    expect(sid).toMatch(/^CA/);

    const listed = await api(
      'GET',
      `/calls?direction=outbound&phoneNumberId=${bench.number.id}&status=queued`,
    );
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(created.id);
    const none = await api('GET', '/calls?direction=inbound');
    expect(none.body.data.map((c: { id: string }) => c.id)).not.toContain(created.id);
    await statusCallback(bench, created.id, { CallSid: sid, CallStatus: 'canceled' });
    await eventually(async () => (await callOf(created.id)).status === 'canceled');
  });

  it('replays a create with the same Idempotency-Key: one call, one placing', async () => {
    const headers = { 'Idempotency-Key': `call-${Date.now()}` };
    const body = { phoneNumberId: bench.number.id, to: '+14155550124' };
    const first = await call(bench.app.baseUrl, 'POST', '/api/v2/developers/calls', {
      token: bench.dev.testKey,
      body,
      headers,
    });
    const again = await call(bench.app.baseUrl, 'POST', '/api/v2/developers/calls', {
      token: bench.dev.testKey,
      body,
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    const sid = await placed(first.body.data.id);
    expect(bench.stub.placed.filter((r) => r.form.get('To') === '+14155550124')).toHaveLength(1);
    await statusCallback(bench, first.body.data.id, { CallSid: sid, CallStatus: 'failed' });
  });

  it.each([
    ['a premium-rate number', '+19005551234', 'premium-rate'],
    ['a shared-cost number', '+33810123456', 'shared-cost'],
    ['another country', '+442079460000', 'not allowed'],
    ['a short or emergency number', '+1911', 'not a valid phone number'],
    ['not E.164', '4155550123', 'E.164'],
  ])('refuses %s with a 400 and places nothing', async (_what, to, message) => {
    const before = bench.stub.requests.length;
    const res = await place({ to });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(res.body.validationErrors)).toContain(message);
    expect(bench.stub.requests.length).toBe(before);
  });

  it('refuses bad input: an unknown field, a maxDurationS out of range', async () => {
    expect((await place({ extra: 1 })).status).toBe(400);
    expect((await place({ maxDurationS: 5 })).status).toBe(400);
    expect((await place({ phoneNumberId: 'nope' })).status).toBe(400);
  });

  it("caps a free plan's calls at once (2): the third is a 403 PLAN_LIMIT_REACHED, nothing placed", async () => {
    const dev = await newDeveloper(bench.app, 'calls-cap');
    const number = await addNumber(bench.app, dev);
    const body = { phoneNumberId: number.id, to: '+14155550125' };
    for (let i = 0; i < 2; i++) expect((await api('POST', '/calls', body, dev.testKey)).status).toBe(201);
    await eventually(
      async () => bench.stub.placed.filter((r) => r.form.get('From') === number.number).length === 2,
    );
    const third = await api('POST', '/calls', body, dev.testKey);
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({ success: false, code: 'PLAN_LIMIT_REACHED' });
    await new Promise((r) => setTimeout(r, 300));
    expect(bench.stub.placed.filter((r) => r.form.get('From') === number.number)).toHaveLength(2);
  });

  it("is another account's 404: get, hang up, and placing from its number", async () => {
    const created = (await place({ to: '+14155550126' })).body.data;
    const other = await newDeveloper(bench.app, 'calls-other');
    expect((await api('GET', `/calls/${created.id}`, undefined, other.testKey)).status).toBe(404);
    expect((await api('POST', `/calls/${created.id}/hangup`, undefined, other.testKey)).status).toBe(404);
    expect((await api('GET', `/calls/${created.id}`, undefined, bench.dev.liveKey)).status).toBe(404);
    expect((await place({}, other.testKey)).status).toBe(404);
    const list = await api('GET', '/calls', undefined, other.testKey);
    expect(list.body.data).toEqual([]);
    const sid = await placed(created.id);
    await statusCallback(bench, created.id, { CallSid: sid, CallStatus: 'no-answer' });
  });

  it('hangs up a call whose workflow never started (Temporal was down): canceled here, never placed', async () => {
    const id = `call_nostart${Date.now()}`;
    const knex = bench.app.ctx.orm.em.getConnection().getKnex();
    await knex.raw(
      `insert into calls (id, account_id, environment, phone_number_id, persona_id, direction, "from", "to", status,
         timeline, max_duration_s, created_at, updated_at)
       values (?, ?, 'test', ?, 'persona_x', 'outbound', ?, '+14155550128', 'queued',
         '[{"status":"queued","at":"2026-01-01T00:00:00.000Z"}]', 600, now(), now())`,
      [id, bench.dev.publisherId, bench.number.id, bench.number.number],
    );
    const before = bench.stub.placed.length;
    const res = await api('POST', `/calls/${id}/hangup`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'canceled', endedReason: 'hangup', durationS: 0 });
    expect(res.body.data.timeline.map((t: { status: string }) => t.status)).toEqual(['queued', 'canceled']);
    expect(bench.stub.placed.length).toBe(before);
  });

  it('a carrier 4xx fails the call with its message', async () => {
    bench.stub.mode = 'refuse';
    try {
      const created = (await place({ to: '+14155550127' })).body.data;
      const ended = await eventually(async () => {
        const c = await callOf(created.id);
        return c.status === 'failed' ? c : undefined;
      });
      expect(ended.endedReason).toBe(
        "carrier_refused: The 'To' number is not a valid phone number. (Twilio error 21211)",
      );
      expect(ended.carrierCallId).toBeNull();
    } finally {
      bench.stub.mode = 'place';
    }
  });

  it("takes the persona's telephony.maxDurationS as a call's default, outbound and inbound; a request's own wins", async () => {
    await setNumberPersona(bench, {
      ...completeManifest('max-duration-agent'),
      telephony: { maxDurationS: 90 },
    });
    expect((await place({ to: '+14155550131' })).body.data.maxDurationS).toBe(90);
    expect((await place({ to: '+14155550132', maxDurationS: 300 })).body.data.maxDurationS).toBe(300);
    const sid = `CA${'7'.repeat(32)}`;
    const answer = await signedPost(bench, `/voice/${bench.number.id}`, {
      CallSid: sid,
      From: '+14155550190',
      To: bench.number.number,
      CallStatus: 'ringing',
    });
    expect(answer.body).toContain('<Connect><Stream');
    const inbound = (await api('GET', '/calls?direction=inbound')).body.data.find(
      (c: { carrierCallId: string }) => c.carrierCallId === sid,
    );
    expect(inbound.maxDurationS).toBe(90);
  });
});
