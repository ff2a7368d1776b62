import { TEST_ADMIN_TOKEN } from '../support/env';
import type { Watch } from '../support/fuzz/checks';
import { announce, runs, timeLimit } from '../support/fuzz/config';
import { secretsInLines } from '../support/fuzz/log-capture';
import { type OpenApiDocument, type Operation, operationsOf, rootOf } from '../support/fuzz/openapi';
import { stringHints } from '../support/fuzz/pools';
import type { FuzzWorld } from '../support/fuzz/request-parts';
import { type FuzzRig, startFuzzRig } from '../support/fuzz/rig';
import { fuzzOperation, printStats } from '../support/fuzz/run-operation';
import { SchemaArbitraries } from '../support/fuzz/schema-arbitrary';
import { seedTenant } from '../support/fuzz/seed';
import { snapshotChanges, snapshotOf } from '../support/fuzz/snapshot';
import type { Tenant } from '../support/fuzz/tenant';
import { call } from '../support/test-app';

/** Requests per operation (FUZZ_RUNS scales it). */
const RUNS_PER_OPERATION = runs(40);

/**
 * Issue 26 item 8: a property-based fuzzer that walks every operation of the OpenAPI document the
 * app serves, as tenant B, with valid and invalid bodies, queries, headers and ids (its own and
 * tenant A's). For every answer: no 5xx; a 2xx is a declared status whose body matches the declared
 * schema, a 4xx the error body (and the app's own response check never fired); whatever the document
 * or the contract refuses is a 4xx; no secret value or credential; nothing of A's that B did not
 * send. After every operation that writes, A's resources, read through A's own GETs, are unchanged,
 * and no log line since holds a secret.
 */
let rig: FuzzRig;
let alpha: Tenant;
let bravo: Tenant;
let operations: Operation[];
let world: FuzzWorld;
let watch: Watch;
let secrets: string[];
let alphaBefore: Record<string, unknown>;

beforeAll(async () => {
  announce('contract fuzzer (operations)');
  rig = await startFuzzRig('ops');
  alpha = await seedTenant(rig, 'alpha');
  bravo = await seedTenant(rig, 'bravo');
  const doc = (await call<OpenApiDocument>(rig.app.baseUrl, 'GET', '/openapi.json')).body;
  operations = operationsOf(doc);
  world = { gen: new SchemaArbitraries(doc, stringHints(rig, bravo, alpha)), actor: bravo, victim: alpha };
  secrets = [
    ...alpha.canaries,
    ...bravo.canaries,
    ...alpha.credentials,
    ...bravo.credentials,
    TEST_ADMIN_TOKEN,
  ];
  secrets.push(...rig.issuedTokens);
  watch = {
    doc,
    actor: bravo,
    victim: alpha,
    secrets: [...new Set(secrets)],
    sentByActor: new Set(),
    isolation: true,
  };
  alphaBefore = await snapshotOf(rig.app.baseUrl, alpha);
  expect(rig.logs.total).toBeGreaterThan(0); // the capture works: every request logs a line
  expect(secretsInLines(rig.logs.drain(), secrets)).toEqual([]);
  rig.outboundSinceLast(); // A's own seeding sent A's secrets out; from here on nothing may
}, 180_000);
afterAll(async () => {
  printStats();
  await rig?.close();
});

describe('contract fuzzer: every operation of /openapi.json, as tenant B against tenant A', () => {
  it.each(['platform', 'console', 'marketplace', 'admin'] as const)(
    'the %s API: no 5xx, declared answers, refusals where due, A unseen and unchanged, no secret answered or logged',
    async (root) => {
      const failures: string[] = [];
      const mine = operations.filter((op) => rootOf(op) === root);
      expect(mine.length).toBeGreaterThan(0);
      // the operator may read and change any account: B's isolation from A is not in question there
      const asOperator = { ...watch, isolation: root !== 'admin' };
      for (const op of mine) {
        const failure = await fuzzOperation(rig.app.baseUrl, op, world, asOperator, RUNS_PER_OPERATION);
        if (failure) failures.push(failure);
        if (op.method !== 'GET') {
          const after = await snapshotOf(rig.app.baseUrl, alpha);
          const changes = snapshotChanges(alphaBefore, after);
          if (changes.length && asOperator.isolation)
            failures.push(`${op.key} changed A's resources:\n  ${changes.join('\n  ')}`);
          alphaBefore = after;
        }
        for (const leak of secretsInLines(rig.logs.drain(), watch.secrets))
          failures.push(`${op.key}: ${leak}`);
        // B's calls never carry A's secrets out (a {{secrets.NAME}} of A's resolved for B, say)
        const sent = secretsInLines(rig.outboundSinceLast(), alpha.canaries, 'sent out in');
        for (const leak of sent) failures.push(`${op.key}: ${leak}`);
      }
      expect(failures).toEqual([]);
    },
    timeLimit(240_000),
  );
});
