import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { Logger } from 'pino';
import { registerSearchAttributes } from '../register-search-attributes';
import type { SearchAttributeTypeName } from '../search-attributes';
import { waitUntil } from './readiness';

const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;

/**
 * How long the other services may take to see a namespace or search attribute just made: their
 * namespace registries refresh every 2 s (`system.namespaceCacheRefreshInterval`).
 */
const REGISTRY_REFRESH_MS = 3_000;

export interface NamespaceSetup {
  address: string;
  namespace: string;
  retentionDays: number;
  searchAttributes: Record<string, SearchAttributeTypeName>;
  logger: Logger;
  timeoutMs?: number;
}

/**
 * Makes the namespace ready to use on a running cluster: registers it when missing, then registers
 * the platform's search attributes (src/temporal/register-search-attributes.ts) until the frontend
 * lists them all. After creating anything it waits for the other services' registries to catch up.
 */
export async function prepareNamespace(setup: NamespaceSetup): Promise<void> {
  const connection = await Connection.connect({ address: setup.address, connectTimeout: '5s' });
  try {
    const created = await ensureNamespace(connection, setup);
    let registered = false;
    await waitUntil({
      what: `search attributes in ${setup.namespace}`,
      timeoutMs: setup.timeoutMs ?? 60_000,
      intervalMs: 500,
      check: async () => {
        try {
          const missing = await missingSearchAttributes(connection, setup);
          if (missing.length === 0) return null;
          const attrs = Object.fromEntries(missing.map((name) => [name, setup.searchAttributes[name]!]));
          await registerSearchAttributes(connection, setup.namespace, attrs, setup.logger);
          registered = true;
          return `not listed yet: ${missing.join(', ')}`;
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      },
    });
    if (created || registered) await sleep(REGISTRY_REFRESH_MS);
  } finally {
    await connection.close();
  }
}

/** Registers the namespace when it does not exist; true when it did so. Waits until it is described. */
async function ensureNamespace(connection: Connection, setup: NamespaceSetup): Promise<boolean> {
  const { namespace } = setup;
  let created = false;
  await waitUntil({
    what: `namespace ${namespace}`,
    timeoutMs: setup.timeoutMs ?? 60_000,
    intervalMs: 500,
    check: async () => {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return null;
      } catch (error) {
        if (!(isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND))
          return error instanceof Error ? error.message : String(error);
      }
      try {
        await connection.workflowService.registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs(`${setup.retentionDays} days`),
          description: 'the voice platform (npm run cluster)',
        });
        created = true;
        setup.logger.info({ namespace, retentionDays: setup.retentionDays }, 'registered the namespace');
      } catch (error) {
        if (!(isGrpcServiceError(error) && error.code === GRPC_ALREADY_EXISTS))
          return `registering it: ${error instanceof Error ? error.message : String(error)}`;
      }
      return 'registered, not described yet';
    },
  });
  return created;
}

async function missingSearchAttributes(connection: Connection, setup: NamespaceSetup): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({
    namespace: setup.namespace,
  });
  return Object.keys(setup.searchAttributes).filter((name) => !(name in customAttributes));
}
