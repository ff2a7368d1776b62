/**
 * The Twilio double against a minimal stand-in platform (./support/twilio-double/stand-in-platform.ts):
 * an HTTP handler that checks each request's signature (ours and the `twilio` package's
 * `validateRequest`) and answers TwiML, and a `ws` server that checks the upgrade's signature with
 * our signature.ts. Here: the REST API's basic auth and call resource (the official client talks to
 * it), an outbound call's signed status callbacks through each outcome, and inbound calls; the media
 * stream is test/twilio-double-stream.unit.test.ts.
 */
import twilio from 'twilio';
import { connectStreamTwiml } from '../src/telephony/twilio/twiml';
import { startTwilioDouble, type TwilioDouble } from './support/twilio-double';
import {
  basicAuth,
  callsUrl,
  placeCall,
  startStandInPlatform,
  statuses,
  until,
} from './support/twilio-double/stand-in-platform';

let carrier: TwilioDouble;
let platform: Awaited<ReturnType<typeof startStandInPlatform>>;
beforeEach(async () => {
  carrier = await startTwilioDouble();
  platform = await startStandInPlatform(carrier.authToken);
});
afterEach(async () => {
  await carrier.close();
  await platform.close();
});

describe('the REST API', () => {
  it('takes Calls.json under basic auth only, and answers a queued CA… call resource', async () => {
    for (const authorization of [
      '',
      basicAuth(carrier, 'wrong'),
      `Basic ${Buffer.from('ACnope:x').toString('base64')}`,
    ]) {
      const refused = await placeCall(carrier, platform, undefined, authorization);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 20003, status: 401 });
    }
    expect(carrier.calls).toHaveLength(0);
    const created = await placeCall(carrier, platform);
    expect(created.status).toBe(201);
    const call = await created.json();
    expect(call).toMatchObject({
      sid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
      status: 'queued',
      direction: 'outbound-api',
    });
    expect(call).toMatchObject({
      account_sid: carrier.accountSid,
      to: '+15005550006',
      from: '+15005550001',
      api_version: '2010-04-01',
    });
    expect(carrier.requests.at(-1)!.params.StatusCallbackEvent).toEqual([
      'initiated',
      'ringing',
      'answered',
      'completed',
    ]);
  });

  it('serves the official twilio client (create, then hang up with Status=completed)', async () => {
    const client = twilio(carrier.accountSid, carrier.authToken);
    (client.api as unknown as { baseUrl: string }).baseUrl = carrier.baseUrl;
    const twiml = connectStreamTwiml(`${platform.base.replace('http', 'ws')}/stream`);
    const created = await client.calls.create({ to: '+15005550006', from: '+15005550001', twiml });
    expect(created).toMatchObject({
      sid: expect.stringMatching(/^CA/),
      status: 'queued',
      to: '+15005550006',
    });
    const call = await carrier.waitForCall(0);
    const stream = await call.waitForStream();
    await until(() => platform.sockets.length === 1, 'the stream');
    const ended = await client.calls(created.sid).update({ status: 'completed' });
    expect(ended.sid).toBe(created.sid);
    expect(await call.ended).toBe('completed');
    await stream.ended;
    const stop = platform.sockets[0]!.of('stop')[0]!.message;
    expect(stop.stop).toEqual({ accountSid: carrier.accountSid, callSid: created.sid });
  });
});

describe('an outbound call', () => {
  it('posts signed status callbacks through to completed, with CallDuration', async () => {
    await placeCall(carrier, platform);
    const call = await carrier.waitForCall(0);
    await call.waitForStream();
    await until(() => statuses(platform).length === 3, 'answered');
    await call.hangUp();
    await until(() => statuses(platform).length === 4, 'completed');
    expect(statuses(platform)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    const callbacks = platform.requests.filter((r) => r.path === '/status');
    for (const r of callbacks) expect([r.ours, r.oracle]).toEqual([true, true]);
    expect(callbacks.map((r) => r.params.SequenceNumber)).toEqual(['0', '1', '2', '3']);
    expect(callbacks[3]!.params).toMatchObject({
      CallSid: call.sid,
      AccountSid: carrier.accountSid,
      Direction: 'outbound-api',
    });
    expect(callbacks[3]!.params.CallDuration).toMatch(/^\d+$/);
    expect(callbacks[3]!.params.Timestamp).toMatch(/^\w{3}, \d{2} \w{3} \d{4} [\d:]{8} \+0000$/);
  });

  it.each(['busy', 'no-answer', 'failed'] as const)('ends %s without a stream', async (outcome) => {
    carrier.script({ outcome, ringMs: 20 });
    await placeCall(carrier, platform);
    const call = await carrier.waitForCall(0);
    expect(await call.ended).toBe(outcome);
    await until(() => statuses(platform).length === 3, 'the last callback');
    expect(statuses(platform)).toEqual(['initiated', 'ringing', outcome]);
    expect(call.stream).toBeUndefined();
  });

  it('is canceled by Status=canceled while it rings; only the requested events are posted', async () => {
    carrier.script({ outcome: 'answer', ringMs: 5000 });
    const placedAt = Date.now();
    const { sid } = (await (await placeCall(carrier, platform, ['completed'])).json()) as { sid: string };
    const update = await fetch(callsUrl(carrier).replace('.json', `/${sid}.json`), {
      method: 'POST',
      headers: { authorization: basicAuth(carrier) },
      body: new URLSearchParams({ Status: 'canceled' }),
    });
    expect(update.status).toBe(200);
    expect(await update.json()).toMatchObject({ sid, status: 'canceled' });
    expect(await carrier.calls[0]!.ended).toBe('canceled');
    expect(Date.now() - placedAt).toBeLessThan(1000);
    await until(() => statuses(platform).length === 1, 'completed');
    expect(statuses(platform)).toEqual(['canceled']);
  });

  it('sends a wrongly signed callback or upgrade when scripted to, which the platform refuses', async () => {
    carrier.script({ outcome: 'answer', signature: 'wrong', ringMs: 10 });
    await placeCall(carrier, platform);
    const call = await carrier.waitForCall(0);
    const stream = await call.waitForStream();
    expect(stream.refusedWith).toBe(403);
    expect(platform.upgrades).toEqual([false]);
    await call.ended;
    expect(call.callbacks.map((c) => c.status)).toEqual([403, 403, 403, 403]);
  });
});

describe('an inbound call', () => {
  it('posts the signed voice webhook and follows its TwiML onto the stream; the platform closing it ends the call', async () => {
    const call = await carrier.dial(`${platform.base}/voice`, {
      from: '+15005550009',
      to: '+15005550006',
      statusCallback: `${platform.base}/status`,
    });
    expect(call.webhookResponse!.status).toBe(200);
    const webhook = platform.requests.find((r) => r.path === '/voice')!;
    expect([webhook.ours, webhook.oracle]).toEqual([true, true]);
    expect(webhook.params).toMatchObject({
      CallSid: call.sid,
      AccountSid: carrier.accountSid,
      From: '+15005550009',
      To: '+15005550006',
    });
    expect(webhook.params).toMatchObject({
      CallStatus: 'ringing',
      Direction: 'inbound',
      ApiVersion: '2010-04-01',
    });
    await call.waitForStream();
    await until(() => platform.sockets[0]?.of('start').length === 1, 'start');
    expect(platform.sockets[0]!.of('start')[0]!.message.start.customParameters).toEqual({
      token: 'tok-1',
      note: 'a&b "c"',
    });
    platform.sockets[0]!.ws.close();
    expect(await call.ended).toBe('completed');
    await until(() => statuses(platform).length === 1, 'completed');
    expect(statuses(platform)).toEqual(['completed']);
  });

  it('fails the call when the webhook refuses a wrong signature', async () => {
    const call = await carrier.dial(`${platform.base}/voice`, {
      from: '+15005550009',
      to: '+15005550006',
      script: { signature: 'wrong' },
    });
    expect(call.webhookResponse!.status).toBe(403);
    expect(await call.ended).toBe('failed');
    expect(platform.sockets).toHaveLength(0);
  });
});

describe('status callbacks and TwiML URLs', () => {
  const place = (fields: Record<string, string>) =>
    fetch(callsUrl(carrier), {
      method: 'POST',
      headers: { authorization: basicAuth(carrier) },
      body: new URLSearchParams({ To: '+15005550006', From: '+15005550001', ...fields }),
    });

  it('holds callbacks for a test to post out of order, and replays one as a duplicate', async () => {
    carrier.script({ outcome: 'busy', ringMs: 10, callbacks: 'hold' });
    const statusCallback = `${platform.base}/status`;
    await place({
      Twiml: '<Response/>',
      StatusCallback: statusCallback,
      StatusCallbackEvent: 'initiated ringing completed',
    });
    const call = await carrier.waitForCall(0);
    await call.ended;
    expect(platform.requests).toHaveLength(0);
    await call.deliverHeldCallbacks([2, 0, 1]);
    expect(await call.replayCallback(2)).toBe(204);
    expect(statuses(platform)).toEqual(['busy', 'initiated', 'ringing', 'busy']);
    expect(platform.requests.every((r) => r.ours && r.oracle)).toBe(true);
  });

  it('asks a Url for the TwiML once answered (signed) and GETs callbacks when StatusCallbackMethod=GET', async () => {
    const statusCallback = `${platform.base}/status?leg=a`;
    await place({
      Url: `${platform.base}/voice`,
      StatusCallback: statusCallback,
      StatusCallbackMethod: 'GET',
    });
    const call = await carrier.waitForCall(0);
    await call.waitForStream();
    await until(() => platform.sockets[0]?.of('start').length === 1, 'start');
    expect(platform.sockets[0]!.of('start')[0]!.message.start.customParameters).toMatchObject({
      token: 'tok-1',
    });
    const asked = platform.requests.find((r) => r.path === '/voice')!;
    expect(asked).toMatchObject({
      ours: true,
      oracle: true,
      params: { CallStatus: 'in-progress', Direction: 'outbound-api' },
    });
    await call.hangUp();
    await until(() => platform.requests.some((r) => r.path.startsWith('/status')), 'the completed callback');
    const completed = platform.requests.find((r) => r.path.startsWith('/status'))!;
    expect(completed).toMatchObject({ ours: true, oracle: true, params: {} });
    expect(new URL(completed.path, platform.base).searchParams.get('CallStatus')).toBe('completed');
  });
});
