import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** Collects every documented operation as routes are mounted, so the document cannot drift from them. */
export class OpenApiRegistry {
  private readonly paths: ZodOpenApiPathsObject = {};

  add(method: HttpMethod, expressPath: string, operation: ZodOpenApiOperationObject): void {
    const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    this.paths[path] = { ...this.paths[path], [method]: operation };
  }

  document(serverUrl?: string): ReturnType<typeof createDocument> {
    return createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Voice Agent Developer Platform',
        version: '2.0.0',
        description:
          'Platform API v2 (`/api/v2/developers`, API keys), console API v1 (`/api/v1/developers`, ID tokens), ' +
          'marketplace API (`/api/marketplace`, gateway headers) and operator API (`/api/admin`).',
      },
      servers: serverUrl ? [{ url: serverUrl }] : undefined,
      paths: this.paths,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A `pk_live_…` or `pk_test_…` API key' },
          idToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Identity-provider ID token',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN' },
          marketplaceUser: { type: 'apiKey', in: 'header', name: 'x-user-id' },
          marketplacePublisher: { type: 'apiKey', in: 'header', name: 'x-publisher-id' },
        },
      },
    });
  }
}
