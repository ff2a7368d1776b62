import fs from 'node:fs/promises';
import path from 'node:path';
import { hostPort } from '../dev-server-ports';
import { dynamicConfigDocument } from './dynamic-config';
import type { TemporalPorts } from './ports';
import { TEMPORAL_SERVICES, TEMPORAL_SQL_PLUGIN, type TemporalServiceName } from './topology';
import { toYaml, type YamlMap } from './yaml';

/** The PostgreSQL server both Temporal databases live on. */
export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The two databases: persistence (`default`) and advanced visibility. */
export interface TemporalDatabases {
  default: string;
  visibility: string;
}

export interface ServerConfigInput {
  ip: string;
  ports: TemporalPorts;
  postgres: PostgresTarget;
  databases: TemporalDatabases;
  /** Fixed when the persistence database is first set up: a database keeps the count it started with. */
  numHistoryShards: number;
  dynamicConfigFile: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** The config environment name: each service reads `<config dir>/cluster.yaml` (`--env cluster`). */
export const SERVER_CONFIG_ENV = 'cluster';

/**
 * A SQL datastore. Connection caps are kept low: the four services, both platform APIs and the four
 * workers share one local PostgreSQL (100 connections by default).
 */
function sqlStore(postgres: PostgresTarget, databaseName: string, maxConns: number): YamlMap {
  return {
    sql: {
      pluginName: TEMPORAL_SQL_PLUGIN,
      databaseName,
      connectAddr: hostPort(postgres.host, postgres.port),
      connectProtocol: 'tcp',
      user: postgres.user,
      password: postgres.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

function servicesSection(input: ServerConfigInput): YamlMap {
  return Object.fromEntries(
    TEMPORAL_SERVICES.map((service) => {
      const ports = input.ports[service];
      const rpc: YamlMap = { grpcPort: ports.grpc, membershipPort: ports.membership, bindOnIP: input.ip };
      if (ports.http) rpc.httpPort = ports.http;
      return [service, { rpc }];
    }),
  );
}

/**
 * The server config `service`'s process reads: every service's ports (they find each other through
 * membership, kept in the persistence database), and its own metrics port.
 */
export function temporalServerConfig(input: ServerConfigInput, service: TemporalServiceName): YamlMap {
  const frontend = input.ports.frontend;
  const frontendAddress = hostPort(input.ip, frontend.grpc);
  return {
    log: { stdout: true, level: input.logLevel, format: 'json' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: input.numHistoryShards,
      datastores: {
        default: sqlStore(input.postgres, input.databases.default, 8),
        visibility: sqlStore(input.postgres, input.databases.visibility, 3),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: input.ip },
      metrics: {
        prometheus: {
          framework: 'tally',
          timerType: 'histogram',
          listenAddress: hostPort(input.ip, input.ports[service].metrics),
        },
      },
    },
    services: servicesSection(input),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: frontendAddress,
          ...(frontend.http ? { httpAddress: hostPort(input.ip, frontend.http) } : {}),
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    publicClient: { hostPort: frontendAddress },
    dynamicConfigClient: { filepath: input.dynamicConfigFile, pollInterval: '10s' },
  };
}

/** The Web UI server's config: pointed at the frontend, on its own port, no auth, no version check. */
export function uiServerConfig(opts: { ip: string; port: number; frontendAddress: string }): YamlMap {
  const origins = [`http://${hostPort(opts.ip, opts.port)}`, `http://localhost:${opts.port}`];
  return {
    temporalGrpcAddress: opts.frontendAddress,
    host: opts.ip,
    port: opts.port,
    enableUi: true,
    defaultNamespace: 'default',
    notifyOnNewVersion: false,
    refreshInterval: '0s',
    showTemporalSystemNamespace: false,
    cors: { cookieInsecure: true, allowOrigins: origins, unsafeAllowAllOrigins: false },
    auth: { enabled: false },
  };
}

/** Where each config file goes under the run directory's `temporal/`. */
export function configPaths(temporalDir: string) {
  return {
    dynamicConfigFile: path.join(temporalDir, 'dynamicconfig.yaml'),
    serviceConfigDir: (service: TemporalServiceName) => path.join(temporalDir, 'config', service),
    uiConfigDir: path.join(temporalDir, 'config', 'ui'),
  };
}

/**
 * Writes the dynamic config, each service's `config/<service>/cluster.yaml` and the UI's
 * `config/ui/cluster.yaml`; returns the config directories.
 */
export async function writeClusterConfigs(opts: {
  temporalDir: string;
  server: Omit<ServerConfigInput, 'dynamicConfigFile'>;
  ui: { port: number };
}): Promise<{ serviceConfigDirs: Record<TemporalServiceName, string>; uiConfigDir: string }> {
  const paths = configPaths(opts.temporalDir);
  const input: ServerConfigInput = { ...opts.server, dynamicConfigFile: paths.dynamicConfigFile };
  await fs.mkdir(opts.temporalDir, { recursive: true });
  await fs.writeFile(paths.dynamicConfigFile, toYaml(dynamicConfigDocument()));
  const serviceConfigDirs = {} as Record<TemporalServiceName, string>;
  for (const service of TEMPORAL_SERVICES) {
    const dir = paths.serviceConfigDir(service);
    await fs.mkdir(dir, { recursive: true });
    // the password is in it: the owner's alone
    await fs.writeFile(
      path.join(dir, `${SERVER_CONFIG_ENV}.yaml`),
      toYaml(temporalServerConfig(input, service)),
      { mode: 0o600 },
    );
    serviceConfigDirs[service] = dir;
  }
  await fs.mkdir(paths.uiConfigDir, { recursive: true });
  const frontendAddress = hostPort(input.ip, input.ports.frontend.grpc);
  await fs.writeFile(
    path.join(paths.uiConfigDir, `${SERVER_CONFIG_ENV}.yaml`),
    toYaml(uiServerConfig({ ip: input.ip, port: opts.ui.port, frontendAddress })),
  );
  return { serviceConfigDirs, uiConfigDir: paths.uiConfigDir };
}
