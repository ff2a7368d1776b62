import { createConfig, lintFromString } from '@redocly/openapi-core';
import { openApiDocument } from '../scripts/openapi';
import { EVENT_TYPES, sampleEventData } from '../src/events/catalog';
import { EVENT_PAYLOAD_SCHEMAS } from '../src/events/payload-schemas';
import { operationIdOf } from '../src/http/operation-ids';

/**
 * The served OpenAPI document is one an SDK can be generated from (issue 44 item 1): Redocly's
 * `recommended` rules (the engine of Redocly CLI's `lint`) report no error, and every operation has
 * a stable, unique `resource.verb` id and a tag.
 */
interface WebhookOperation {
  tags?: string[];
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, { $ref?: string; const?: string }> } }>;
  };
}

describe('the OpenAPI document', () => {
  let document: {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
    webhooks: Record<string, { post?: WebhookOperation }>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };
  beforeAll(async () => {
    document = (await openApiDocument()) as typeof document;
  }, 60_000);

  it("passes Redocly's recommended rules with no error", async () => {
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((e) => `${e.ruleId}: ${e.message} at ${e.location[0]?.pointer}`)).toEqual([]);
  });

  it('names every operation resource.verb, once, and tags it', () => {
    const ids: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect([`${method} ${path}`, operation.operationId]).toEqual([
          `${method} ${path}`,
          expect.stringMatching(/^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$/),
        ]);
        expect(operation.tags?.length).toBeGreaterThan(0);
        ids.push(operation.operationId!);
      }
    }
    expect(ids.length).toBeGreaterThan(150);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives ids an SDK reads as resources and verbs', () => {
    expect(operationIdOf('post', '/webhooks')).toBe('webhooks.create');
    expect(operationIdOf('get', '/webhooks')).toBe('webhooks.list');
    expect(operationIdOf('get', '/webhooks/:id')).toBe('webhooks.get');
    expect(operationIdOf('post', '/sessions/:id/turns')).toBe('sessions.turns.create');
    expect(operationIdOf('post', '/webhooks/:id/rotate-secret')).toBe('webhooks.rotateSecret');
    expect(operationIdOf('get', '/phone-numbers')).toBe('phoneNumbers.list');
    expect(operationIdOf('post', '/campaigns/:id/pause')).toBe('campaigns.pause');
    expect(operationIdOf('post', '/execute/:itemId', 'marketplace')).toBe('marketplace.execute');
    expect(operationIdOf('get', '/personas', 'console')).toBe('console.personas.list');
  });

  it('lists every catalogued event type as a webhook, with its payload schema (the catalog is part of the contract)', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      expect([type, EVENT_PAYLOAD_SCHEMAS[type] !== undefined]).toEqual([type, true]);
      const operation = document.webhooks[type].post;
      expect(operation?.tags?.length).toBeGreaterThan(0);
      const envelope = operation?.requestBody?.content?.['application/json']?.schema;
      expect(envelope?.properties?.type).toEqual(expect.objectContaining({ const: type }));
      // each type's data is a named schema with its fields, not an open object
      const ref = envelope?.properties?.data?.$ref ?? '';
      expect([type, ref]).toEqual([type, expect.stringMatching(/^#\/components\/schemas\/\w+EventData$/)]);
      const name = ref.split('/').at(-1)!;
      expect(Object.keys(document.components.schemas[name]?.properties ?? {}).length).toBeGreaterThan(0);
    }
  });

  it("describes the sandbox trigger's sample of each event type", () => {
    for (const type of EVENT_TYPES) {
      const parsed = EVENT_PAYLOAD_SCHEMAS[type]?.safeParse(sampleEventData(type));
      expect([type, parsed?.success ? 'ok' : parsed?.error.message]).toEqual([type, 'ok']);
    }
  });
});
