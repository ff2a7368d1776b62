/**
 * Writes the OpenAPI document the API serves at /openapi.json, without a running server, database
 * or Temporal: the app is assembled (every route registers its zod schemas in the registry) over a
 * context whose ORM never connects and whose clients are never called.
 *
 *   tsx scripts/openapi.ts [out.json]   (default web/openapi.json)
 */

import fs from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../src/app/app';
import { entities } from '../src/app/entities';
import type { AppContext } from '../src/common/context';
import { loadConfig } from '../src/config/env';
import { ormOptions } from '../src/db/orm';
import { createLogger } from '../src/logging/logger';

const unused = (what: string) =>
  new Proxy(
    {},
    {
      get(_target, prop) {
        if (prop === 'then') return undefined;
        throw new Error(`${what}.${String(prop)} is not available while exporting the OpenAPI document`);
      },
    },
  );

export async function openApiDocument(): Promise<unknown> {
  // NODE_ENV=test: the voice routes leave their speech threads unstarted
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: '.data' });
  const orm = await MikroORM.init({
    ...ormOptions('postgres://127.0.0.1:1/openapi-export', 1, entities),
    connect: false,
  });
  try {
    const ctx = {
      config,
      logger: createLogger('silent', 'openapi-export'),
      orm,
      encryptor: unused('encryptor'),
      mcpConnections: unused('mcpConnections'),
      temporal: unused('temporal'),
      rateLimits: unused('rateLimits'),
      speech: unused('speech'),
      verifyIdToken: async () => {
        throw new Error('not available while exporting the OpenAPI document');
      },
    } as unknown as AppContext;
    const { registry } = createApp(ctx);
    return registry.document();
  } finally {
    await orm.close(true);
  }
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'web/openapi.json');
  const document = await openApiDocument();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
