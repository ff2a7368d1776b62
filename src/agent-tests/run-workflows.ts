import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { testRunWorkflow } from '../../workflows/test-run';
import type { Config } from '../config/env';
import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import { AccountIdKey, PersonaIdKey } from '../temporal/search-attributes';
import type { TestRunWorkflowInput } from './agent-test-types';

export interface RunToStart {
  id: string;
  accountId: string;
  personaId: string;
  scenarioIds: string[];
}

/**
 * Starts a run's workflow (workflow id = run id, so the API's start and the outbox handler's are
 * one execution); search attributes let operators find an account's or a persona's runs.
 */
export async function startTestRunWorkflow(temporal: Client, config: Config, run: RunToStart) {
  const input: TestRunWorkflowInput = {
    runId: run.id,
    accountId: run.accountId,
    personaId: run.personaId,
    scenarioIds: run.scenarioIds,
    // how many scenarios run at once (each drives one session); fixed in the run's input when it starts
    concurrency: config.agentTests.runConcurrency,
  };
  try {
    return await temporal.workflow.start<typeof testRunWorkflow>('testRunWorkflow', {
      workflowId: run.id,
      taskQueue: config.temporal.taskQueues.background,
      args: [input],
      typedSearchAttributes: [
        { key: AccountIdKey, value: run.accountId },
        { key: PersonaIdKey, value: run.personaId },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle(run.id);
    throw error;
  }
}

/** Asks a run's workflow to cancel; one that has closed already (not found) is fine. */
export async function cancelTestRunWorkflow(temporal: Client, id: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(id).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** A run the API has not started after this long is started here (the API crashed or Temporal was down). */
const RUN_START_GRACE_SECONDS = 5;

/** Agent tests' side of the outbox: starts the workflows of committed runs the API could not start. */
export function createTestRunOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'agent-tests',
    startPending(startClaimed) {
      return startClaimed<{
        id: string;
        account_id: string;
        persona_id: string;
        scenarios: { id: string }[];
      }>({
        table: 'test_runs',
        claimSql: `select id, account_id, persona_id, scenarios from test_runs
           where workflow_started_at is null and status = 'running'
             and created_at < now() - make_interval(secs => ?)
           order by created_at limit ? for update skip locked`,
        bindings: [RUN_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startTestRunWorkflow(temporal, config, {
            id: r.id,
            accountId: r.account_id,
            personaId: r.persona_id,
            scenarioIds: r.scenarios.map((s) => s.id),
          }),
      });
    },
  };
}
