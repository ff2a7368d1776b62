import type { Environment } from '../common/owner';
import { OUTBOX_BATCH, type OutboxDeps, type OutboxHandler } from '../events/outbox';
import type { RunVoiceWorkflowInput } from './execution-types';
import { startExecutionWorkflow } from './execution-workflows';

/** An execution the API has not started after this long is started here (the API crashed or Temporal was down). */
const EXECUTION_START_GRACE_SECONDS = 10;

interface UnstartedExecution {
  id: string;
  workflow_id: string;
  version: number;
  account_id: string;
  environment: Environment;
  session_id: string | null;
  started_at: string | Date;
  definition: RunVoiceWorkflowInput['graph'];
  input: unknown;
}

/**
 * Voice workflows' side of the outbox: executions whose row was committed but whose Temporal
 * workflow was never started (the API crashed, or Temporal was down when it tried) are started
 * after a grace period (workflow id = `exec_…` id, so a start the API did make is not repeated).
 */
export function createWorkflowOutboxHandler({ temporal, config }: OutboxDeps): OutboxHandler {
  return {
    name: 'workflows',

    startPending(startClaimed) {
      return startClaimed<UnstartedExecution>({
        table: 'workflow_executions',
        claimSql: `select id, workflow_id, version, account_id, environment, session_id, started_at, definition, input
           from workflow_executions
           where workflow_started_at is null and status = 'running'
             and started_at < now() - make_interval(secs => ?)
           order by started_at limit ? for update skip locked`,
        bindings: [EXECUTION_START_GRACE_SECONDS, OUTBOX_BATCH],
        start: (r) =>
          startExecutionWorkflow(temporal, config, {
            executionId: r.id,
            workflowId: r.workflow_id,
            version: r.version,
            accountId: r.account_id,
            environment: r.environment,
            sessionId: r.session_id,
            startedAt: new Date(r.started_at).toISOString(),
            graph: r.definition,
            input: r.input,
          }),
      });
    },
  };
}
