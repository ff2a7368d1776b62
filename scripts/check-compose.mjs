/**
 * Checks that docker-compose.yml describes the topology `npm run cluster` runs
 * (CLUSTER_TOPOLOGY in src/temporal/cluster/topology.ts, and the dynamic config): the four
 * Temporal services on the official server image with SERVICES=<service>, the schema and namespace
 * one-shots, the Web UI, migrations, two APIs and one worker service per pool with its
 * WORKER_TASK_QUEUES. Exits 1 naming every difference.
 *
 *   node scripts/check-compose.mjs [--file docker-compose.yml] [--parser auto|docker|yaml]
 *
 * `auto` (the default) renders the file with `docker compose config` when the compose plugin is
 * there, else parses the YAML itself (the `yaml` package).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    file: { type: 'string', default: path.join(root, 'docker-compose.yml') },
    parser: { type: 'string', default: 'auto' },
  },
});
if (!['auto', 'docker', 'yaml'].includes(flags.parser)) {
  console.error(`--parser must be auto, docker or yaml (got ${flags.parser})`);
  process.exit(2);
}

const topologyModule = await tsImport('../src/temporal/cluster/topology.ts', import.meta.url);
const dynamicConfigModule = await tsImport('../src/temporal/cluster/dynamic-config.ts', import.meta.url);
const { CLUSTER_TOPOLOGY: topology, PLATFORM_COMMANDS, TEMPORAL_SQL_PLUGIN } = topologyModule;

/** Placeholders for the variables the file requires (`${VAR:?…}`), so that it renders. */
const REQUIRED = ['ENCRYPTION_KEY', 'ADMIN_TOKEN', 'AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URL'];

function hasComposePlugin() {
  const result = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  return result.status === 0;
}

function renderWithDocker(file) {
  const env = { ...process.env };
  for (const name of REQUIRED) env[name] ||= 'check-compose';
  const result = spawnSync('docker', ['compose', '-f', file, 'config', '--format', 'json'], {
    encoding: 'utf8',
    env,
  });
  if (result.status !== 0) throw new Error(`docker compose config failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function yamlParser() {
  const { parse } = await import('yaml');
  return (text) => parse(text, { merge: true });
}

// ---- normalising the compose file's shorthand forms ----

function environmentOf(service) {
  const env = service?.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => [entry.split('=')[0], entry.split('=').slice(1).join('=')]));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function commandOf(service) {
  const command = service?.command;
  if (command === undefined || command === null) return [];
  return Array.isArray(command) ? command.map(String) : String(command).trim().split(/\s+/);
}

function publishedPorts(service) {
  return (service?.ports ?? []).map((port) => {
    if (typeof port === 'object') return Number(port.published);
    const parts = String(port).split(':');
    return parts.length >= 2 ? Number(parts[parts.length - 2]) : Number.NaN;
  });
}

function sameJson(a, b) {
  const canonical = (v) =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical(v[k])]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

// ---- the checks ----

function check(doc, parse) {
  const problems = [];
  const services = doc?.services ?? {};
  const service = (name) => {
    if (!services[name]) problems.push(`service ${name} is missing`);
    return services[name];
  };
  const expect = (ok, message) => ok || problems.push(message);
  const sameCommand = (name, want) => {
    const got = commandOf(services[name]);
    expect(
      got.join(' ') === want.join(' '),
      `${name}: command is "${got.join(' ')}", expected "${want.join(' ')}"`,
    );
  };

  service(topology.postgres.name);
  checkTemporal({ services, service, expect, doc, parse });

  const ui = service(topology.ui.name);
  expect(
    !ui || ui.image === topology.ui.image,
    `${topology.ui.name}: image ${ui?.image}, expected ${topology.ui.image}`,
  );
  expect(
    !ui || publishedPorts(ui).includes(topology.ui.port),
    `${topology.ui.name}: port ${topology.ui.port} is not published`,
  );

  if (service(topology.migrate.name)) sameCommand(topology.migrate.name, topology.migrate.command);
  for (const api of topology.apis) {
    if (!service(api.name)) continue;
    sameCommand(api.name, PLATFORM_COMMANDS.api);
    expect(
      publishedPorts(services[api.name]).includes(api.port),
      `${api.name}: port ${api.port} is not published`,
    );
  }
  for (const worker of topology.workers) {
    if (!service(worker.name)) continue;
    sameCommand(worker.name, PLATFORM_COMMANDS.worker);
    const queues = environmentOf(services[worker.name]).WORKER_TASK_QUEUES;
    expect(
      queues === worker.workerTaskQueues,
      `${worker.name}: WORKER_TASK_QUEUES is ${queues}, expected ${worker.workerTaskQueues}`,
    );
  }
  checkNoOthers({ services, expect });
  return problems;
}

function checkTemporal({ services, service, expect, doc, parse }) {
  const frontend = `${topology.temporal.services[0].name}:${topology.temporal.frontendPort}`;
  const dynamicConfig = doc?.configs?.['temporal-dynamic-config'];
  for (const { name, service: role } of topology.temporal.services) {
    const s = service(name);
    if (!s) continue;
    const env = environmentOf(s);
    expect(
      s.image === topology.temporal.image,
      `${name}: image ${s.image}, expected ${topology.temporal.image}`,
    );
    expect(env.SERVICES === role, `${name}: SERVICES is ${env.SERVICES}, expected ${role}`);
    expect(env.DB === TEMPORAL_SQL_PLUGIN, `${name}: DB is ${env.DB}, expected ${TEMPORAL_SQL_PLUGIN}`);
    const mounted = (s.configs ?? []).some(
      (c) => (c.source ?? c) === 'temporal-dynamic-config' && c.target === env.DYNAMIC_CONFIG_FILE_PATH,
    );
    expect(mounted, `${name}: the temporal-dynamic-config config is not mounted at DYNAMIC_CONFIG_FILE_PATH`);
  }
  const want = dynamicConfigModule.dynamicConfigDocument();
  const got = typeof dynamicConfig?.content === 'string' ? parse(dynamicConfig.content) : undefined;
  expect(
    sameJson(got, want),
    `configs.temporal-dynamic-config differs from src/temporal/cluster/dynamic-config.ts: expected\n${JSON.stringify(want)}`,
  );

  const schema = service(topology.temporal.schema.name);
  if (schema) {
    expect(
      schema.image === topology.temporal.schema.image,
      `${topology.temporal.schema.name}: image ${schema.image}, expected ${topology.temporal.schema.image}`,
    );
    const script = commandOf(schema).join(' ');
    for (const name of topology.temporal.schema.schemas)
      expect(script.includes(name), `${topology.temporal.schema.name}: does not set up ${name}`);
  }
  const { name: nsService, namespace, retentionDays } = topology.temporal.namespace;
  const ns = service(nsService);
  if (ns) {
    const script = commandOf(ns).join(' ');
    expect(
      script.includes(`--namespace ${namespace}`) && script.includes(`--retention ${retentionDays}d`),
      `${nsService}: does not create namespace ${namespace} with ${retentionDays}d retention`,
    );
  }
  for (const [name, s] of Object.entries(services)) {
    const address = environmentOf(s).TEMPORAL_ADDRESS;
    expect(
      address === undefined || address === frontend,
      `${name}: TEMPORAL_ADDRESS is ${address}, expected ${frontend}`,
    );
  }
}

/** No service the cluster does not run: another Temporal server, API or worker would be drift too. */
function checkNoOthers({ services, expect }) {
  const known = new Set([
    topology.postgres.name,
    topology.ui.name,
    topology.migrate.name,
    topology.temporal.schema.name,
    topology.temporal.namespace.name,
    ...topology.temporal.services.map((s) => s.name),
    ...topology.apis.map((s) => s.name),
    ...topology.workers.map((s) => s.name),
  ]);
  for (const name of Object.keys(services))
    expect(known.has(name), `service ${name} is not in the cluster's topology`);
}

const file = path.resolve(flags.file);
const useDocker = flags.parser === 'docker' || (flags.parser === 'auto' && hasComposePlugin());
const parse = await yamlParser();
try {
  const doc = useDocker ? renderWithDocker(file) : parse(readFileSync(file, 'utf8'));
  const problems = check(doc, parse);
  const how = useDocker ? 'docker compose config' : 'parsed YAML';
  if (problems.length) {
    console.error(
      `${path.relative(process.cwd(), file)} does not match the cluster's topology (${how}):\n  - ${problems.join('\n  - ')}`,
    );
    process.exit(1);
  }
  console.log(`${path.relative(process.cwd(), file)} matches the cluster's topology (${how})`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
