import { unwrapWebhook, VoicePlatform, WebhookVerificationError } from '../sdk/src';
import { startReceiver } from './support/receiver';
import { type Developer, newDeveloper, startTestApp, type TestApp } from './support/test-app';

/** `client.webhooks.unwrap` on real deliveries: the platform signs, the SDK verifies with Web Crypto. */
describe('the SDK: verifying webhook deliveries', () => {
  let app: TestApp;
  let dev: Developer;
  let client: VoicePlatform;
  beforeAll(async () => {
    app = await startTestApp();
    dev = await newDeveloper(app, 'sdk-hooks');
    client = new VoicePlatform({ apiKey: dev.testKey, baseUrl: app.baseUrl });
  }, 60_000);
  afterAll(() => app?.close());

  it('returns the typed event of a good signature, and refuses a tampered or expired one', async () => {
    const receiver = await startReceiver();
    try {
      const webhook = await client.webhooks.create({
        name: 'sdk',
        url: receiver.url,
        events: ['webhook.test'],
      });
      await client.webhooks.test(webhook.id);
      const [delivery] = await receiver.waitFor(1, 30_000);
      const headers = delivery.headers as Record<string, string>;

      const event = await client.webhooks.unwrap(delivery.rawBody, headers, webhook.secret);
      expect(event.type).toBe('webhook.test');
      if (event.type === 'webhook.test') expect(event.data.message).toEqual(expect.any(String));
      // a Headers object and bytes work the same
      const bytes = new TextEncoder().encode(delivery.rawBody);
      expect((await unwrapWebhook(bytes, new Headers(headers), webhook.secret)).id).toBe(event.id);

      const tampered = delivery.rawBody.replace('webhook.test', 'session.ended');
      await expect(client.webhooks.unwrap(tampered, headers, webhook.secret)).rejects.toBeInstanceOf(
        WebhookVerificationError,
      );
      // each scheme alone is checked too
      const { 'x-service-signature': _own, ...standardOnly } = headers;
      await expect(client.webhooks.unwrap(tampered, standardOnly, webhook.secret)).rejects.toThrow(
        'webhook-signature does not match',
      );
      await expect(client.webhooks.unwrap(delivery.rawBody, headers, 'whsec_d3Jvbmc=')).rejects.toThrow(
        WebhookVerificationError,
      );

      const sixMinutesLater = new Date(Date.now() + 6 * 60_000);
      await expect(
        client.webhooks.unwrap(delivery.rawBody, headers, webhook.secret, { now: sixMinutesLater }),
      ).rejects.toThrow('outside the tolerance window');
      await expect(client.webhooks.unwrap(delivery.rawBody, {}, webhook.secret)).rejects.toThrow(
        'No signature',
      );
    } finally {
      await receiver.close();
    }
  });
});
