import { startWorker } from '../../src/app/runtime';
import { addNumber } from './calls';
import { TEST_ENV } from './env';
import { call, type Developer, newDeveloper, setPlan, startTestApp, type TestApp } from './test-app';
import { startTwilioDouble, type TwilioDouble } from './twilio-double';

/** What a campaigns test works with: the API, the Twilio double, a developer (enterprise plan) and a number on it. */
export interface CampaignRig {
  app: TestApp;
  double: TwilioDouble;
  dev: Developer;
  number: { id: string; number: string };
  personaId: string;
  /** The platform API as the developer's test key: status and body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * An API on a task queue of its own pointed at a Twilio double (PUBLIC_URL its own address), a
 * worker in this process unless `worker: false` (a test that runs worker processes of its own),
 * and an enterprise developer with a number on the double. `env` adds to the API's environment
 * (CAMPAIGN_MINUTE_MS).
 */
export async function startCampaignRig(
  env: Record<string, string> = {},
  opts: { worker?: boolean; taskQueue?: string; databaseUrl?: string } = {},
): Promise<CampaignRig> {
  const double = await startTwilioDouble();
  const app = await startTestApp({
    TWILIO_API_BASE_URL: double.baseUrl,
    TEMPORAL_TASK_QUEUE: opts.taskQueue ?? `cmp-${process.pid}-${Date.now().toString(36)}`,
    CARRIER_TIMEOUT_MS: '3000',
    CALL_UNCONFIRMED_WAIT_S: '5',
    RATE_LIMITS: 'off',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    ...env,
  });
  (app.ctx.config as { publicUrl?: string }).publicUrl = app.baseUrl;
  const worker =
    opts.worker === false
      ? undefined
      : await startWorker(app.ctx, TEST_ENV.temporalAddress(), { listen: false, dispatch: false });
  const dev = await newDeveloper(app, 'campaigns');
  await setPlan(app, dev.publisherId, 'enterprise');
  const number = await addNumber(app, dev, double);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });
    return { status: res.status, body: res.body };
  };
  const personaId = (await api('GET', `/phone-numbers/${number.id}`)).body.data.personaId as string;
  return {
    app,
    double,
    dev,
    number,
    personaId,
    api,
    async stop() {
      await worker?.stop();
      await app.close();
      await double.close();
    },
  };
}

/** The `i`-th contact number of a test (valid US numbers, +1 415 200 0000 onwards). */
export const contactNumber = (i: number) =>
  `+1415${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`;

/** Contacts `0..n-1`, each with its index as a variable. */
export const contacts = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ to: contactNumber(i), variables: { n: String(i) } }));

/** Calling hours always open (but for one minute at 23:59 UTC on the campaign's clock). */
export const ALWAYS_OPEN = { start: '00:00', end: '23:59', timezone: 'UTC' };

/** The largest number of intervals `[start, end)` that overlap at any instant. */
export function maxOverlap(intervals: { start: number; end: number }[]): number {
  const edges = intervals.flatMap((i) => [
    { at: i.start, d: 1 },
    { at: i.end, d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) {
    now += e.d;
    most = Math.max(most, now);
  }
  return most;
}

/** Waits until the campaign's status is one of `statuses`; answers the campaign. */
export async function waitForCampaign(
  rig: Pick<CampaignRig, 'api'>,
  id: string,
  statuses: string[],
  timeoutMs = 120_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  // a canceled campaign says so at once, and ends once its calls under way have
  const ending = statuses.some((s) => s === 'completed' || s === 'canceled');
  for (;;) {
    const { body } = await rig.api('GET', `/campaigns/${id}`);
    if (statuses.includes(body.data?.status) && (!ending || body.data.endedAt)) return body.data;
    if (Date.now() > deadline) throw new Error(`campaign ${id}: still ${JSON.stringify(body.data)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every contact of a campaign, all pages. */
export async function allContacts(rig: Pick<CampaignRig, 'api'>, id: string): Promise<any[]> {
  const all: any[] = [];
  for (let offset = 0; ; offset += 200) {
    const { body } = await rig.api('GET', `/campaigns/${id}/contacts?limit=200&offset=${offset}`);
    all.push(...body.data);
    if (all.length >= body.pagination.total) return all;
  }
}
