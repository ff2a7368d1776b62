import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { dynamicConfigDocument } from '../src/temporal/cluster/dynamic-config';
import { allTemporalPorts, chooseTemporalPorts, MAX_CLUSTER_PORT } from '../src/temporal/cluster/ports';
import {
  SERVER_CONFIG_ENV,
  type ServerConfigInput,
  temporalServerConfig,
  writeClusterConfigs,
} from '../src/temporal/cluster/server-config';
import { CLUSTER_TOPOLOGY, TEMPORAL_SERVICES } from '../src/temporal/cluster/topology';
import { toYaml } from '../src/temporal/cluster/yaml';
import { WORKLOADS } from '../src/temporal/task-queues';

const root = path.resolve(__dirname, '..');

type Rpc = { grpcPort: number; membershipPort: number; httpPort?: number; bindOnIP: string };
type ParsedConfig = {
  services: Record<string, { rpc: Rpc }>;
  persistence: {
    numHistoryShards: number;
    datastores: Record<string, { sql: { pluginName: string; password: string } }>;
  };
  global: { metrics: { prometheus: { listenAddress: string } } };
  dynamicConfigClient: { filepath: string };
};

async function serverInput(): Promise<ServerConfigInput> {
  return {
    ip: '127.0.0.1',
    ports: await chooseTemporalPorts({ ip: '127.0.0.1', base: 7233 }),
    postgres: { host: '127.0.0.1', port: 5432, user: 'postgres', password: 'a "quoted": pass#word' },
    databases: { default: 'temporal_cluster', visibility: 'temporal_cluster_visibility' },
    numHistoryShards: 4,
    dynamicConfigFile: '/tmp/dynamicconfig.yaml',
    logLevel: 'info',
  };
}

describe('the cluster topology', () => {
  it('runs the four Temporal services, two APIs and one worker per pool', () => {
    expect(CLUSTER_TOPOLOGY.temporal.services.map((s) => s.service)).toEqual([
      'frontend',
      'history',
      'matching',
      'worker',
    ]);
    expect(CLUSTER_TOPOLOGY.apis).toHaveLength(2);
    expect(CLUSTER_TOPOLOGY.workers.map((w) => w.workerTaskQueues)).toEqual([...WORKLOADS]);
  });
});

describe('the Temporal server config', () => {
  it('picks distinct free ports, none above 32767', async () => {
    const ports = allTemporalPorts(await chooseTemporalPorts({ ip: '127.0.0.1', base: 7233 }));
    expect(ports).toHaveLength(13);
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThanOrEqual(MAX_CLUSTER_PORT);
  });

  it('is YAML with the four services on distinct ports at or below 32767', async () => {
    const input = await serverInput();
    for (const service of TEMPORAL_SERVICES) {
      const parsed = parse(toYaml(temporalServerConfig(input, service))) as ParsedConfig;
      expect(Object.keys(parsed.services).sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
      const rpcs = Object.values(parsed.services).map((s) => s.rpc);
      const ports = rpcs.flatMap((rpc) => [
        rpc.grpcPort,
        rpc.membershipPort,
        ...(rpc.httpPort ? [rpc.httpPort] : []),
      ]);
      expect(new Set(ports).size).toBe(9);
      for (const port of ports) expect(port).toBeLessThanOrEqual(MAX_CLUSTER_PORT);
      expect(parsed.services.frontend!.rpc.httpPort).toBe(input.ports.frontend.http);
      expect(parsed.persistence.numHistoryShards).toBe(4);
      expect(parsed.persistence.datastores.visibility!.sql.pluginName).toBe('postgres12');
      expect(parsed.global.metrics.prometheus.listenAddress).toBe(
        `127.0.0.1:${input.ports[service].metrics}`,
      );
      // a password with quotes and # reads back as written
      expect(parsed.persistence.datastores.default!.sql.password).toBe(input.postgres.password);
    }
  });

  it('writes each service its own config file, the UI one and the dynamic config', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-config-'));
    try {
      const { dynamicConfigFile: _, ...server } = await serverInput();
      const written = await writeClusterConfigs({ temporalDir: dir, server, ui: { port: 8080 } });
      for (const service of TEMPORAL_SERVICES) {
        const file = path.join(written.serviceConfigDirs[service], `${SERVER_CONFIG_ENV}.yaml`);
        const parsed = parse(fs.readFileSync(file, 'utf8')) as ParsedConfig;
        expect(parsed.dynamicConfigClient.filepath).toBe(path.join(dir, 'dynamicconfig.yaml'));
      }
      const dynamic = parse(fs.readFileSync(path.join(dir, 'dynamicconfig.yaml'), 'utf8'));
      expect(dynamic).toEqual(dynamicConfigDocument());
      const ui = parse(fs.readFileSync(path.join(written.uiConfigDir, `${SERVER_CONFIG_ENV}.yaml`), 'utf8'));
      expect(ui).toMatchObject({
        port: 8080,
        temporalGrpcAddress: `127.0.0.1:${server.ports.frontend.grpc}`,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('scripts/check-compose.mjs', () => {
  const checkCompose = (file: string) =>
    spawnSync(process.execPath, [path.join(root, 'scripts/check-compose.mjs'), '--file', file], {
      cwd: root,
      encoding: 'utf8',
    });

  it('passes on docker-compose.yml', () => {
    const result = checkCompose(path.join(root, 'docker-compose.yml'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('fails, naming the difference, on a copy that drifted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-compose-'));
    try {
      const original = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
      const drifted = original
        .replace('WORKER_TASK_QUEUES: deliveries', 'WORKER_TASK_QUEUES: deliveries,executions')
        .replace('SERVICES: matching', 'SERVICES: matching,history')
        .replace(/\n {2}api-2:\n/, '\n  api-b:\n');
      expect(drifted).not.toBe(original);
      const file = path.join(dir, 'docker-compose.yml');
      fs.writeFileSync(file, drifted);
      const result = checkCompose(file);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('worker-deliveries: WORKER_TASK_QUEUES is deliveries,executions');
      expect(result.stderr).toContain('temporal-matching: SERVICES is matching,history');
      expect(result.stderr).toContain('service api-2 is missing');
      expect(result.stderr).toContain('service api-b is not in the cluster');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
