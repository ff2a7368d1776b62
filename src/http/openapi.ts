import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { EVENT_TYPES } from '../events/catalog';
import { EVENT_PAYLOAD_SCHEMAS, UNDESCRIBED_EVENT_DATA } from '../events/payload-schemas';
import { eventEnvelopeSchema } from '../events/payloads';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** Tag names of areas whose first path segment does not title-case well. */
const AREA_TAGS: Record<string, string> = {
  me: 'Account',
  keys: 'API keys',
  'mcp-servers': 'MCP servers',
  oauth: 'OAuth',
};

/**
 * The OpenAPI tag of a route: its area, named after the first segment of its path (`/webhooks/:id/logs`
 * → `Webhooks`), so /docs groups operations by area rather than by API root.
 */
export function areaTag(path: string): string {
  const segment = path.split('/').find((part) => part.length > 0) ?? '';
  const known = AREA_TAGS[segment];
  if (known) return known;
  const words = segment.replace(/[-_]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : 'General';
}

/** Collects every documented operation as routes are mounted, so the document cannot drift from them. */
export class OpenApiRegistry {
  private readonly paths: ZodOpenApiPathsObject = {};
  /** Tag → description, in the order areas were first mounted. */
  private readonly tags = new Map<string, string>();

  add(method: HttpMethod, expressPath: string, operation: ZodOpenApiOperationObject, root: string): void {
    const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    this.paths[path] = { ...this.paths[path], [method]: operation };
    for (const tag of operation.tags ?? []) {
      const roots = this.tags.get(tag);
      if (!roots) this.tags.set(tag, root);
      else if (!roots.split(', ').includes(root)) this.tags.set(tag, `${roots}, ${root}`);
    }
  }

  document(serverUrl?: string): ReturnType<typeof createDocument> {
    return createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Voice Agent Developer Platform',
        version: '2.0.0',
        license: { name: 'Proprietary' },
        description:
          'Platform API v2 (`/api/v2/developers`, API keys), console API v1 (`/api/v1/developers`, ID tokens), ' +
          'marketplace API (`/api/marketplace`, gateway headers) and operator API (`/api/admin`).',
      },
      servers: [
        {
          url: serverUrl ?? '/',
          description: serverUrl ? 'This server' : 'The server that serves this document',
        },
      ],
      tags: [...this.tags].map(([name, roots]) => ({ name, description: `On ${roots}` })),
      paths: this.paths,
      webhooks: eventWebhooks(),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A `pk_live_…` or `pk_test_…` API key' },
          idToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Identity-provider ID token',
          },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The operator ADMIN_TOKEN; the review routes also take the ID token of a console user an operator marked as reviewer',
          },
          marketplaceUser: { type: 'apiKey', in: 'header', name: 'x-user-id' },
          marketplacePublisher: { type: 'apiKey', in: 'header', name: 'x-publisher-id' },
        },
      },
    });
  }
}

/**
 * Every catalogued event type (src/events/catalog.ts) with its `data` schema
 * (src/events/payload-schemas.ts), as OpenAPI webhooks: what a subscribed webhook receives
 * (docs/webhooks.md). The event catalogue is part of the contract an SDK is generated from.
 */
function eventWebhooks(): ZodOpenApiPathsObject {
  const webhooks: ZodOpenApiPathsObject = {};
  for (const type of EVENT_TYPES) {
    const data = EVENT_PAYLOAD_SCHEMAS[type] ?? UNDESCRIBED_EVENT_DATA;
    webhooks[type] = {
      post: {
        operationId: `events.${type}`,
        tags: ['Webhooks'],
        summary: `\`${type}\``,
        // a delivery is signed, not authenticated: the receiver checks the signature
        security: [],
        description:
          'Sent to each enabled webhook subscribed to the type, signed (`X-Service-Signature`, `webhook-signature`): see docs/webhooks.md.',
        requestBody: {
          content: { 'application/json': { schema: eventEnvelopeSchema(type, data) } },
        },
        responses: { '200': { description: 'Any 2xx within WEBHOOK_TIMEOUT_MS counts as delivered' } },
      },
    };
  }
  return webhooks;
}
