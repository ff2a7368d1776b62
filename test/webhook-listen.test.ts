import http from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { eventually } from './support/receiver';
import { call, type Developer, type TestApp, withAppAndDeveloper } from './support/test-app';

let app: TestApp;
let dev: Developer;
withAppAndDeveloper((a, d) => {
  app = a;
  dev = d;
});

const api = (method: string, path: string, body?: unknown, key = dev.testKey) =>
  call(app.baseUrl, method, `/api/v2/developers${path}`, { token: key, body });

type Message = Record<string, any>;

/** A WebSocket client speaking the listen protocol as `vp listen` does, its messages queued. */
async function listen(query = '', key = dev.testKey) {
  const url = `${app.baseUrl.replace(/^http/, 'ws')}/api/v2/developers/webhooks/listen${query}`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } } as never);
  const messages: Message[] = [];
  ws.onmessage = (m) => messages.push(JSON.parse(String(m.data)));
  const closed = new Promise<number>((r) => ws.addEventListener('close', (e) => r(e.code)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('the upgrade was refused'));
  });
  const next = (type: string) =>
    eventually(async () => {
      const i = messages.findIndex((m) => m.type === type);
      return i === -1 ? undefined : messages.splice(i, 1)[0];
    }, 15_000);
  return { ws, messages, closed, next, ready: await next('listen.ready') };
}

const trigger = async (type: string) => {
  const res = await api('POST', '/events/trigger', { type });
  expect(res.status).toBe(201);
  return res.body.data as { event: { id: string }; matchingWebhooks: string[] };
};

describe('vp listen: GET /api/v2/developers/webhooks/listen', () => {
  it('forwards each event down the socket signed, records the local answer, and ends with the socket', async () => {
    const first = await listen('?events=session.started,session.ended');
    const { webhookId, secret } = first.ready;
    expect(webhookId).toMatch(/^wh_/);
    expect(secret).toMatch(/^whsec_/);
    expect(first.ready.events).toEqual(['session.started', 'session.ended']);

    const { event, matchingWebhooks } = await trigger('session.started');
    expect(matchingWebhooks).toContain(webhookId);
    const delivery = await first.next('delivery');
    expect(delivery).toMatchObject({ eventId: event.id, eventType: 'session.started', attempt: 1 });
    // the headers a registered endpoint gets: Stripe's and Standard Webhooks' verifiers accept them
    const headers = delivery.headers as Record<string, string>;
    const stripe = new Stripe('sk_test_unused').webhooks.constructEvent(
      delivery.body,
      headers['X-Service-Signature']!,
      secret,
    );
    expect((stripe as unknown as { id: string }).id).toBe(event.id);
    const standard = new StandardWebhook(secret).verify(delivery.body, {
      'webhook-id': headers['webhook-id']!,
      'webhook-timestamp': headers['webhook-timestamp']!,
      'webhook-signature': headers['webhook-signature']!,
    });
    expect(standard).toMatchObject({ id: event.id });
    // the local server's 500 is the delivery's attempt, in the delivery log like any other
    first.ws.send(
      JSON.stringify({
        type: 'delivery.answer',
        deliveryId: delivery.deliveryId,
        attempt: 1,
        status: 500,
        latencyMs: 7,
        body: 'boom',
      }),
    );
    const log = await eventually(async () => {
      const res = await api('GET', `/webhooks/${webhookId}/logs/${delivery.deliveryId}`);
      return res.body.data?.status === 'failed' ? res.body.data : undefined;
    });
    expect(log.attemptLog).toEqual([
      expect.objectContaining({
        attempt: 1,
        success: false,
        statusCode: 500,
        latencyMs: 7,
        responseBody: 'boom',
      }),
    ]);
    // a bad message is an `error` event; the socket stays
    first.ws.send(JSON.stringify({ type: 'delivery.answer', attempt: 'one' }));
    expect((await first.next('error')).code).toBe('INVALID_MESSAGE');

    first.ws.close(1000);
    await first.closed;
    const listed = await eventually(async () => {
      const res = await api('GET', '/webhooks');
      const hook = res.body.data.find((w: { id: string }) => w.id === webhookId);
      return hook?.enabled === false ? hook : undefined;
    });
    expect(listed).toMatchObject({ kind: 'listener', status: 'disabled' });
    // nothing queues for a listener that is not there
    const missed = await trigger('session.started');
    expect(missed.matchingWebhooks).not.toContain(webhookId);
    const knex = app.ctx.orm.em.getConnection().getKnex();
    await eventually(
      async () => (await knex('events').where({ id: missed.event.id }).first())?.dispatched_at,
    );
    expect(await knex('deliveries').where({ event_id: missed.event.id, webhook_id: webhookId })).toEqual([]);

    // the same endpoint and secret next time: the secret is not sent again
    const second = await listen();
    expect(second.ready).toMatchObject({ webhookId, secret: null });
    const again = await trigger('session.ended');
    const forwarded = await second.next('delivery');
    expect(forwarded.eventId).toBe(again.event.id);
    second.ws.send(
      JSON.stringify({
        type: 'delivery.answer',
        deliveryId: forwarded.deliveryId,
        attempt: 1,
        status: 204,
        latencyMs: 3,
      }),
    );
    await eventually(async () => {
      const res = await api('GET', `/webhooks/${webhookId}/logs/${forwarded.deliveryId}`);
      return res.body.data?.status === 'delivered';
    });
    // a newer listen takes over; the older socket is closed with 4001
    const third = await listen();
    expect(await second.closed).toBe(4001);
    third.ws.close(1000);
    await third.closed;
  }, 60_000);

  it('refuses a bad key (401) and unknown event types (400) before the upgrade', async () => {
    const refused = (query: string, key: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.get(`${app.baseUrl}/api/v2/developers/webhooks/listen${query}`, {
          headers: {
            authorization: `Bearer ${key}`,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
      });
    expect((await refused('', 'pk_test_nope')).status).toBe(401);
    const bad = await refused('?events=session.started,nope', dev.testKey);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/query\.events/);
  });
});
