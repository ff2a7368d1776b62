import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { VoicePlatform } from '../sdk/src';
import { buildCli, newConfigHome, startCli } from './support/cli';
import { eventually, type Receiver, startReceiver } from './support/receiver';
import { call, type Developer, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper((a, d) => {
  app = a;
  dev = d;
});

let local: Receiver;
beforeAll(async () => {
  buildCli();
  local = await startReceiver();
}, 300_000);
afterAll(() => local?.close());

const api = (method: string, path: string, body?: unknown) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: dev.testKey, body });

/**
 * `vp listen` against the running platform (issue 44): a triggered event reaches the developer's
 * local server through the CLI, signed so that the SDK's unwrap, Stripe's and Standard Webhooks'
 * verifiers accept it; the local answer is the delivery's attempt; Ctrl-C ends the subscription.
 */
describe('vp listen --forward-to', () => {
  it('forwards a triggered event, verifiable, records the local 500, and ends with Ctrl-C', async () => {
    const configHome = newConfigHome();
    const env = { VP_API_KEY: dev.testKey, VP_BASE_URL: app.baseUrl };
    const cli = startCli(['listen', '--forward-to', local.url, '--events', 'session.started'], {
      configHome,
      env,
    });
    const [, secret] = await cli.waitFor(/signing secret is (whsec_\S+)/);
    local.respond([500]);

    const triggered = await api('POST', '/events/trigger', { type: 'session.started' });
    expect(triggered.status).toBe(201);
    const event = triggered.body.data.event as { id: string };
    const [request] = await local.waitFor(1, 20_000);
    expect(request.method).toBe('POST');
    expect(JSON.parse(request.rawBody).id).toBe(event.id);
    const headers = request.headers as Record<string, string>;
    const client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
    expect((await client.webhooks.unwrap(request.rawBody, headers, secret!)).id).toBe(event.id);
    const stripe = new Stripe('sk_test_unused').webhooks.constructEvent(
      request.rawBody,
      headers['x-service-signature']!,
      secret!,
    );
    expect((stripe as unknown as { id: string }).id).toBe(event.id);
    expect(
      new StandardWebhook(secret!).verify(request.rawBody, {
        'webhook-id': headers['webhook-id']!,
        'webhook-timestamp': headers['webhook-timestamp']!,
        'webhook-signature': headers['webhook-signature']!,
      }),
    ).toMatchObject({ id: event.id });

    // the local 500 is in the delivery log, as an attempt of the listening endpoint
    const [webhookId] = triggered.body.data.matchingWebhooks as string[];
    const deliveryId = headers['x-service-delivery-id']!;
    const logged = await eventually(async () => {
      const res = await api('GET', `/webhooks/${webhookId}/logs/${deliveryId}`);
      return res.body.data?.status === 'failed' ? res.body.data : undefined;
    });
    expect(logged.attemptLog).toEqual([expect.objectContaining({ attempt: 1, statusCode: 500 })]);
    await cli.waitFor(/--> 500/);

    // Ctrl-C ends the subscription: an event after it goes nowhere
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    await eventually(async () => {
      const res = await api('GET', `/webhooks/${webhookId}`);
      return res.body.data?.enabled === false;
    });
    const after = await api('POST', '/events/trigger', { type: 'session.started' });
    expect(after.body.data.matchingWebhooks).not.toContain(webhookId);
    const knex = app.ctx.orm.em.getConnection().getKnex();
    await eventually(
      async () => (await knex('events').where({ id: after.body.data.event.id }).first())?.dispatched_at,
    );
    expect(
      await knex('deliveries').where({ event_id: after.body.data.event.id, webhook_id: webhookId }),
    ).toEqual([]);
    expect(local.requests).toHaveLength(1);
  }, 90_000);
});
