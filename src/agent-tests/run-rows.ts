/**
 * A run's row as the API's start (runs.service.ts) and a review's test gate (review-gate.ts) both
 * make it. No workflow code is reached from here, so activities may import it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { TestRun, TestScenario } from './agent-test.entity';

/** A persona's scenarios, oldest first (the order a run takes them in). */
export const personaScenarios = (em: EntityManager, accountId: string, personaId: string) =>
  em.find(TestScenario, { account: accountId, personaId }, { orderBy: { createdAt: 'asc', id: 'asc' } });

/**
 * A new run's row (persisted, not flushed) with its scenarios frozen; `workflowStartedAt` for a run
 * whose workflow its creator starts itself (a review's child), so the outbox never starts it.
 */
export function newTestRun(
  em: EntityManager,
  input: {
    accountId: string;
    personaId: string;
    version: number | null;
    scenarios: TestScenario[];
    workflowStartedAt?: Date;
  },
): TestRun {
  const run = em.create(TestRun, {
    account: input.accountId,
    personaId: input.personaId,
    personaVersion: input.version,
    scenarios: input.scenarios.map((s) => ({ id: s.id, name: s.name, definition: s.definition })),
    workflowStartedAt: input.workflowStartedAt ?? null,
  });
  em.persist(run);
  return run;
}
