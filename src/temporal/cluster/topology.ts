import { WORKLOADS, type Workload } from '../task-queues';

/**
 * What the production topology is made of, as data: `npm run cluster` (src/bin/cluster.ts) starts
 * exactly this on one machine, and docker-compose.yml describes the same for containers;
 * `scripts/check-compose.mjs` fails when the two drift apart (docs/cluster.md).
 */

/** The Temporal server release the cluster runs (built from go.temporal.io/server, or the official image). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The Temporal Web UI release (github.com/temporalio/ui-server/v2, or the official image). */
export const TEMPORAL_UI_VERSION = '2.42.1';

/** The Temporal server's four services, each its own process (or container). */
export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalServiceName = (typeof TEMPORAL_SERVICES)[number];

/** The schemas embedded in temporal-sql-tool, one per database (persistence, then visibility). */
export const TEMPORAL_SCHEMAS = {
  default: 'postgresql/v12/temporal',
  visibility: 'postgresql/v12/visibility',
} as const;

/** The SQL plugin both databases use. */
export const TEMPORAL_SQL_PLUGIN = 'postgres12';

/** The platform's commands (compiled code in dist/, as the Dockerfile's image runs them). */
export const PLATFORM_COMMANDS = {
  migrate: ['node', 'dist/src/bin/migrate.js'],
  api: ['node', 'dist/src/bin/api.js'],
  worker: ['node', 'dist/src/bin/worker.js'],
} as const;

export interface WorkerPoolProcess {
  /** The compose service, and the name of the process's log file. */
  name: string;
  pool: Workload;
  /** The `WORKER_TASK_QUEUES` value the process runs with. */
  workerTaskQueues: string;
}

export interface ApiProcess {
  name: string;
  /** The port it listens on by default (the next free one when taken). */
  port: number;
}

export const CLUSTER_TOPOLOGY = {
  postgres: { name: 'postgres' },
  temporal: {
    image: `temporalio/server:${TEMPORAL_SERVER_VERSION}`,
    /** Each Temporal service: compose runs the image with `SERVICES=<service>`. */
    services: TEMPORAL_SERVICES.map((service) => ({ name: `temporal-${service}`, service })),
    /** One-shot: creates the databases and sets up or updates their schemas. */
    schema: {
      name: 'temporal-schema',
      image: `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`,
      schemas: Object.values(TEMPORAL_SCHEMAS),
    },
    /** One-shot: the namespace the platform uses (its search attributes are registered by the API). */
    namespace: { name: 'temporal-namespace', namespace: 'default', retentionDays: 1 },
    frontendPort: 7233,
  },
  ui: { name: 'temporal-ui', image: `temporalio/ui:${TEMPORAL_UI_VERSION}`, port: 8080 },
  migrate: { name: 'migrate', command: PLATFORM_COMMANDS.migrate },
  apis: [
    { name: 'api-1', port: 3000 },
    { name: 'api-2', port: 3001 },
  ] satisfies ApiProcess[],
  workers: WORKLOADS.map(
    (pool): WorkerPoolProcess => ({ name: `worker-${pool}`, pool, workerTaskQueues: pool }),
  ),
} as const;

export type ClusterTopology = typeof CLUSTER_TOPOLOGY;
