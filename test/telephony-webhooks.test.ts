import { takeStreamToken } from '../src/telephony';
import { streamConnectedUpdate } from '../workflows/messages';
import { addNumber, type CallsBench, signedPost, startCallsBench, statusCallback } from './support/calls';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { call } from './support/test-app';

let bench: CallsBench;
let receiver: Receiver;
beforeAll(async () => {
  bench = await startCallsBench();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await bench?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  call(bench.app.baseUrl, method, `/api/v2/developers${path}`, { token: bench.dev.testKey, body });

const callOf = async (id: string) => (await api('GET', `/calls/${id}`)).body.data;

/** Places a call to `to` and waits until the carrier took it; answers its id and CallSid. */
async function placed(to = '+14155550140', body: Record<string, unknown> = {}) {
  const res = await api('POST', '/calls', { phoneNumberId: bench.number.id, to, ...body });
  expect(res.status).toBe(201);
  const id = res.body.data.id as string;
  const sid = await eventually<string>(async () => (await callOf(id)).carrierCallId ?? undefined);
  return { id, sid };
}

const reaches = (id: string, status: string, timeoutMs?: number) =>
  eventually(async () => {
    const c = await callOf(id);
    return c.status === status ? c : undefined;
  }, timeoutMs);

const statuses = (c: { timeline: { status: string }[] }) => c.timeline.map((t) => t.status);

describe('a call driven by signed status callbacks (docs/telephony.md "Calls")', () => {
  it('rings, is answered, completes: the timeline, duration, and call.started / call.ended delivered', async () => {
    const hook = await api('POST', '/webhooks', {
      name: 'calls',
      url: receiver.url,
      events: ['call.started', 'call.ended'],
    });
    expect(hook.status).toBe(201);
    const { id, sid } = await placed();
    expect(await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' })).toBe(204);
    expect(await statusCallback(bench, id, { CallSid: sid, CallStatus: 'in-progress' })).toBe(204);
    await reaches(id, 'in-progress');
    expect(
      await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '42' }),
    ).toBe(204);
    const ended = await reaches(id, 'completed');
    expect(statuses(ended)).toEqual(['queued', 'ringing', 'in-progress', 'completed']);
    expect(ended).toMatchObject({ durationS: 42, endedReason: 'completed', carrierCallId: sid });
    const delivered = await receiver.waitFor(2, 20_000);
    const bodies = delivered.map((r) => JSON.parse(r.rawBody));
    const byType = Object.fromEntries(bodies.map((b) => [b.type, b.data]));
    expect(byType['call.started']).toMatchObject({
      callId: id,
      direction: 'outbound',
      status: 'in-progress',
    });
    expect(byType['call.ended']).toEqual({
      callId: id,
      sessionId: null,
      direction: 'outbound',
      from: bench.number.number,
      to: '+14155550140',
      status: 'completed',
      endedReason: 'completed',
      durationS: 42,
    });
  });

  it.each([
    ['busy', 'busy'],
    ['no-answer', 'no_answer'],
    ['failed', 'failed'],
  ])('ends %s', async (status, reason) => {
    const { id, sid } = await placed();
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' });
    await statusCallback(bench, id, { CallSid: sid, CallStatus: status });
    const ended = await reaches(id, status);
    expect(ended).toMatchObject({ endedReason: reason, durationS: 0 });
    expect(statuses(ended)).toEqual(['queued', 'ringing', status]);
  });

  it('takes duplicated and out-of-order callbacks forward only, once each', async () => {
    const { id, sid } = await placed();
    for (const s of ['in-progress', 'ringing', 'in-progress', 'queued']) {
      expect(await statusCallback(bench, id, { CallSid: sid, CallStatus: s })).toBe(204);
    }
    await reaches(id, 'in-progress');
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '3' });
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '3' });
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' });
    const ended = await reaches(id, 'completed');
    expect(statuses(ended)).toEqual(['queued', 'in-progress', 'completed']);
    await new Promise((r) => setTimeout(r, 300));
    expect(statuses(await callOf(id))).toEqual(['queued', 'in-progress', 'completed']);
  });

  it('refuses a bad or missing signature with 403 and changes nothing', async () => {
    const { id, sid } = await placed();
    expect(
      await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' }, { token: 'not-the-token' }),
    ).toBe(403);
    expect(await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' }, { unsigned: true })).toBe(
      403,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(statuses(await callOf(id))).toEqual(['queued']);
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'canceled' });
  });

  it('hangs up through the carrier; the carrier says canceled: ended by hangup', async () => {
    const { id, sid } = await placed();
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'ringing' });
    await reaches(id, 'ringing');
    const res = await api('POST', `/calls/${id}/hangup`);
    expect(res.status).toBe(200);
    const hangUps = bench.stub.requests.filter((r) => r.path.endsWith(`/Calls/${sid}.json`));
    expect(hangUps.map((r) => r.form.get('Status'))).toEqual(['completed']);
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'canceled' });
    expect(await reaches(id, 'canceled')).toMatchObject({ endedReason: 'hangup' });
    expect((await api('POST', `/calls/${id}/hangup`)).body.data.status).toBe('canceled');
  });

  it('hangs up at maxDurationS after the answer (ended reason max_duration)', async () => {
    const { id, sid } = await placed('+14155550141', { maxDurationS: 10 });
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'in-progress' });
    await eventually(
      () => Promise.resolve(bench.stub.requests.some((r) => r.path.endsWith(`/Calls/${sid}.json`))),
      15_000,
    );
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '10' });
    expect(await reaches(id, 'completed')).toMatchObject({ endedReason: 'max_duration', durationS: 10 });
  }, 30_000);

  it('streamConnected creates the call session once (channel phone, userId the callee); the end ends it', async () => {
    const { id, sid } = await placed('+14155550142');
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'in-progress' });
    const handle = bench.app.ctx.temporal.workflow.getHandle(id);
    const first = await handle.executeUpdate(streamConnectedUpdate);
    const second = await handle.executeUpdate(streamConnectedUpdate);
    expect(second.sessionId).toBe(first.sessionId);
    expect((await callOf(id)).sessionId).toBe(first.sessionId);
    const knex = bench.app.ctx.orm.em.getConnection().getKnex();
    const session = (await knex.raw('select * from sessions where id = ?', [first.sessionId])).rows[0];
    expect(session).toMatchObject({ channel: 'phone', user_id: '+14155550142', status: 'active' });
    await statusCallback(bench, id, { CallSid: sid, CallStatus: 'completed', CallDuration: '5' });
    await reaches(id, 'completed');
    const ended = (await knex.raw('select status from sessions where id = ?', [first.sessionId])).rows[0];
    expect(ended.status).toBe('ended');
  });
});

describe("an incoming call (the number's inboundUrl)", () => {
  const incoming = (sid: string) => ({
    CallSid: sid,
    From: '+14155550190',
    To: bench.number.number,
    CallStatus: 'ringing',
  });
  const callToken = (twiml: string) => /<Parameter name="callToken" value="([^"]+)"\/>/.exec(twiml)?.[1];
  const callsOf = async (sid: string) =>
    (
      await bench.app.ctx.orm.em
        .getConnection()
        .getKnex()
        .raw('select * from calls where carrier_call_id = ?', [sid])
    ).rows;

  it('answers TwiML connecting the call to its stream with a call token good once; a retry is the same call', async () => {
    const sid = `CA${Date.now()}in1`;
    const answer = await signedPost(bench, `/voice/${bench.number.id}`, incoming(sid));
    expect(answer.status).toBe(200);
    const [row] = await callsOf(sid);
    expect(row).toMatchObject({
      direction: 'inbound',
      status: 'ringing',
      from: '+14155550190',
      to: bench.number.number,
    });
    const media = `${bench.app.baseUrl.replace('http', 'ws')}/api/v2/telephony/twilio/media/${row.id}`;
    expect(answer.body).toContain(`<Response><Connect><Stream url="${media}"><Parameter name="callToken"`);
    const again = await signedPost(bench, `/voice/${bench.number.id}`, incoming(sid));
    expect(again.status).toBe(200);
    expect(await callsOf(sid)).toHaveLength(1);
    const token = callToken(answer.body)!;
    const deps = { knex: bench.app.ctx.orm.em.getConnection().getKnex(), encryptor: bench.app.ctx.encryptor };
    expect(await takeStreamToken(deps, 'call_other', token)).toBe(false);
    expect(await takeStreamToken(deps, row.id, token)).toBe(true);
    expect(await takeStreamToken(deps, row.id, token)).toBe(false);
    // the stream started: the session and the answer; the caller hangs up (Twilio names the CallSid)
    const connected = await bench.app.ctx.temporal.workflow
      .getHandle(row.id)
      .executeUpdate(streamConnectedUpdate);
    await reaches(row.id, 'in-progress');
    expect(
      await signedPost(bench, `/status/${bench.number.id}`, {
        ...incoming(sid),
        CallStatus: 'completed',
        CallDuration: '4',
      }),
    ).toMatchObject({ status: 204 });
    expect(await reaches(row.id, 'completed')).toMatchObject({
      sessionId: connected.sessionId,
      durationS: 4,
      direction: 'inbound',
    });
  });

  it('refuses a bad or missing signature with 403 and creates nothing', async () => {
    const sid = `CA${Date.now()}in2`;
    expect(
      (await signedPost(bench, `/voice/${bench.number.id}`, incoming(sid), { token: 'wrong' })).status,
    ).toBe(403);
    expect(
      (await signedPost(bench, `/voice/${bench.number.id}`, incoming(sid), { unsigned: true })).status,
    ).toBe(403);
    expect(await callsOf(sid)).toHaveLength(0);
  });

  it('answers a number without a persona with <Say> and <Hangup/>, creating nothing', async () => {
    const number = await addNumber(bench.app, bench.dev);
    const pn = (await api('GET', `/phone-numbers/${number.id}`)).body.data;
    const gone = await call(bench.app.baseUrl, 'DELETE', `/api/v1/developers/personas/${pn.personaId}`, {
      token: bench.dev.token,
    });
    expect(gone.status).toBe(200);
    const sid = `CA${Date.now()}in3`;
    const url = `/voice/${number.id}`;
    const answer = await signedPost({ ...bench, number }, url, { ...incoming(sid), To: number.number });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/<Response><Say>[^<]+<\/Say><Hangup\/><\/Response>$/);
    expect(await callsOf(sid)).toHaveLength(0);
  });
});
