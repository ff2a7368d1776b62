import twilio from 'twilio';
import { startWorker } from '../../src/app/runtime';
import { type CarrierStub, startCarrierStub } from './carrier-stub';
import { TEST_ADMIN_TOKEN, TEST_ENV } from './env';
import { completeManifest } from './personas';
import { freshNumber, twilioCredentials } from './phone-numbers';
import { call, type Developer, newDeveloper, startTestApp, type TestApp } from './test-app';

/** What a calls test works with: the API, its own worker, the carrier stub, a developer and a Twilio number. */
export interface CallsBench {
  app: TestApp;
  stub: CarrierStub;
  dev: Developer;
  number: { id: string; number: string; authToken: string };
  stop(): Promise<void>;
}

/**
 * An API pointed at a carrier stub (TWILIO_API_BASE_URL), or at `carrier` (the Twilio double, whose
 * account the number is then on), with PUBLIC_URL its own address, and a
 * worker of its own on a task queue of its own (the run's worker has the run's configuration: it
 * would call the real Twilio). Short carrier deadlines, so the unknown-outcome path takes seconds.
 * `env` adds to the API's environment (the LLM and speech-to-text doubles of a call that talks).
 */
export async function startCallsBench(
  carrier: { baseUrl: string; accountSid: string; authToken: string } | undefined = undefined,
  env: Record<string, string> = {},
  opts: { recordCalls?: boolean } = {},
): Promise<CallsBench> {
  const stub = await startCarrierStub();
  const app = await startTestApp({
    TWILIO_API_BASE_URL: carrier?.baseUrl ?? stub.url,
    TEMPORAL_TASK_QUEUE: `calls-${process.pid}-${Date.now().toString(36)}`,
    CARRIER_TIMEOUT_MS: '1500',
    CALL_UNCONFIRMED_WAIT_S: '3',
    RATE_LIMITS: 'off',
    ...env,
  });
  // PUBLIC_URL is where Twilio reaches the API: its address is known once it listens
  (app.ctx.config as { publicUrl?: string }).publicUrl = app.baseUrl;
  const worker = await startWorker(app.ctx, TEST_ENV.temporalAddress(), { listen: false, dispatch: false });
  const dev = await newDeveloper(app, 'calls');
  const number = await addNumber(app, dev, carrier, opts);
  return {
    app,
    stub,
    dev,
    number,
    async stop() {
      await worker.stop();
      await app.close();
      await stub.close();
    },
  };
}

/** A draft persona of `dev`'s account (a test key may call with it). */
export async function newPersona(
  app: TestApp,
  dev: Developer,
  publish = false,
  opts: { recordCalls?: boolean } = {},
): Promise<string> {
  const slug = `call-agent-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
  const base = completeManifest(slug);
  const manifest = opts.recordCalls
    ? { ...base, behaviors: { ...base.behaviors, record_calls: true } }
    : base;
  const created = await call(app.baseUrl, 'POST', '/api/v1/developers/personas', {
    token: dev.token,
    body: { manifest },
  });
  const id = created.body.persona.id as string;
  if (publish) {
    await call(app.baseUrl, 'POST', `/api/v1/developers/personas/${id}/submit`, { token: dev.token });
    await call(app.baseUrl, 'POST', `/api/admin/personas/${id}/review`, {
      token: TEST_ADMIN_TOKEN,
      body: { decision: 'approve' },
    });
  }
  return id;
}

/** A Twilio number (US) on a new draft persona, with the test key. */
export async function addNumber(
  app: TestApp,
  dev: Developer,
  carrier: { accountSid: string; authToken: string } | undefined = undefined,
  opts: { recordCalls?: boolean } = {},
) {
  const credentials = carrier
    ? { accountSid: carrier.accountSid, authToken: carrier.authToken }
    : twilioCredentials();
  const res = await call(app.baseUrl, 'POST', '/api/v2/developers/phone-numbers', {
    token: dev.testKey,
    body: {
      number: freshNumber(),
      provider: 'twilio',
      personaId: await newPersona(app, dev, false, opts),
      credentials,
    },
  });
  if (res.status !== 201) throw new Error(`number not added: ${JSON.stringify(res.body)}`);
  return {
    id: res.body.data.id as string,
    number: res.body.data.number as string,
    authToken: credentials.authToken,
  };
}

/**
 * Posts a form to the API's `path` (under /api/v2/telephony/twilio) as Twilio would: form-encoded,
 * signed by the official `twilio` package with `token` (default: the number's auth token) over
 * PUBLIC_URL and the path; answers the status and body.
 */
export async function signedPost(
  bench: CallsBench,
  path: string,
  params: Record<string, string>,
  opts: { token?: string; unsigned?: boolean } = {},
): Promise<{ status: number; body: string }> {
  const url = `${bench.app.baseUrl}/api/v2/telephony/twilio${path}`;
  const signature = twilio.getExpectedTwilioSignature(opts.token ?? bench.number.authToken, url, params);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(opts.unsigned ? {} : { 'X-Twilio-Signature': signature }),
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.text() };
}

/** A status callback for `callId`, to the number's status URL with `?callId=` (as an outbound call's). */
export async function statusCallback(
  bench: CallsBench,
  callId: string,
  params: Record<string, string>,
  opts: { token?: string; unsigned?: boolean } = {},
): Promise<number> {
  return (await signedPost(bench, `/status/${bench.number.id}?callId=${callId}`, params, opts)).status;
}

/** Gives the bench number's persona `manifest` (a draft persona: the test key calls with it at once). */
export async function setNumberPersona(bench: CallsBench, manifest: Record<string, unknown>): Promise<void> {
  const number = await call(bench.app.baseUrl, 'GET', `/api/v2/developers/phone-numbers/${bench.number.id}`, {
    token: bench.dev.testKey,
  });
  const updated = await call(
    bench.app.baseUrl,
    'PUT',
    `/api/v1/developers/personas/${number.body.data.personaId}`,
    { token: bench.dev.token, body: { manifest } },
  );
  if (updated.status !== 200) throw new Error(`the persona was not updated: ${JSON.stringify(updated.body)}`);
}

/** The `call.*` events of a call, in order of their type, with their `data`. */
export async function callEvents(
  bench: CallsBench,
  callId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const sql = bench.app.ctx.orm.em.fork().getConnection();
  return sql.execute(
    `select type, payload::jsonb->'data' as data from events
      where type like 'call.%' and payload::jsonb->'data'->>'callId' = ? order by type`,
    [callId],
  );
}
