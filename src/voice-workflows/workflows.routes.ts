import type { PlatformAuth } from '../auth/platform-auth';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import { ok, paged } from '../http/envelope';
import { dryRunWorkflow } from './dry-run.service';
import { executeWorkflowById, getExecution, listExecutions } from './runs.service';
import { triggerWorkflow } from './trigger.service';
import { listVersions } from './versions.service';
import {
  CreateWorkflowBody,
  DeletedWorkflow,
  DryRunBody,
  DryRunEnvelope,
  ExecuteWorkflowBody,
  ExecutionEnvelope,
  ExecutionIdParams,
  ExecutionList,
  ListExecutionsQuery,
  ListVersionsQuery,
  ListWorkflowsQuery,
  TriggeredEnvelope,
  TriggerWorkflowBody,
  UpdateWorkflowBody,
  WorkflowEnvelope,
  WorkflowIdParams,
  WorkflowList,
  WorkflowVersionList,
} from './workflows.schemas';
import {
  createWorkflow,
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  updateWorkflow,
} from './workflows.service';

const RUN_DESCRIPTION =
  'With `wait` (default) the answer comes when the run ends (200, status completed or failed) or after `timeoutMs` (202, status running); with `wait: false`, 202 at once. The execution id is also the Temporal workflow id.';

export function mountWorkflowRoutes(platform: ApiRoot<PlatformAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  platform
    .route({
      method: 'post',
      path: '/workflows',
      idempotent: true,
      summary: 'Create a workflow',
      description: 'Every problem of the definition is listed at once in `validationErrors` (400).',
      scope: 'workflows:write',
      body: CreateWorkflowBody,
      success: { status: 201, description: 'The workflow, version 1', schema: WorkflowEnvelope },
      handler: async ({ auth, body }) => ok(await createWorkflow(em(), auth, body)),
    })
    .route({
      method: 'get',
      path: '/workflows',
      summary: 'List workflows',
      scope: 'workflows:read',
      query: ListWorkflowsQuery,
      success: { description: 'Workflows, newest first', schema: WorkflowList },
      handler: async ({ auth, query }) => {
        const { data, total } = await listWorkflows(em(), auth, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'post',
      path: '/workflows/trigger',
      idempotent: true,
      summary: 'Run the workflow a spoken utterance asks for',
      description: `Matches the utterance against every voice_command (normalised word similarity, score 0-1, threshold 0.5). No match: 404 with the closest \`candidates\`; a tie: 409 naming them. ${RUN_DESCRIPTION}`,
      scope: 'workflows:execute',
      body: TriggerWorkflowBody,
      success: {
        description: 'The execution, ended, and its `match`',
        schema: TriggeredEnvelope,
        also: { 202: 'The execution, still running (`wait: false`, or past `timeoutMs`), and its `match`' },
      },
      handler: async ({ auth, body, res }) => {
        const answer = await triggerWorkflow(ctx, em(), auth, body);
        if (answer.running) res.status(202);
        return ok(answer.record);
      },
    })
    .route({
      method: 'get',
      path: '/workflows/:id',
      summary: 'Get a workflow',
      scope: 'workflows:read',
      params: WorkflowIdParams,
      success: { description: 'The workflow', schema: WorkflowEnvelope },
      handler: async ({ auth, params }) => ok(await getWorkflow(em(), auth, params.id)),
    })
    .route({
      method: 'put',
      path: '/workflows/:id',
      summary: 'Update a workflow definition',
      description:
        'Any subset of the fields; the result is validated whole and `version` increments. Running executions keep the version they started with.',
      scope: 'workflows:write',
      params: WorkflowIdParams,
      body: UpdateWorkflowBody,
      success: { description: 'The workflow', schema: WorkflowEnvelope },
      handler: async ({ auth, params, body }) => ok(await updateWorkflow(em(), auth, params.id, body)),
    })
    .route({
      method: 'delete',
      path: '/workflows/:id',
      summary: 'Delete a workflow and its execution history',
      scope: 'workflows:write',
      params: WorkflowIdParams,
      success: { description: 'Deleted', schema: DeletedWorkflow },
      handler: async ({ auth, params }) => ok(await deleteWorkflow(em(), auth, params.id)),
    })
    .route({
      method: 'post',
      path: '/workflows/:id/execute',
      idempotent: true,
      summary: 'Execute a workflow',
      description: RUN_DESCRIPTION,
      scope: 'workflows:execute',
      params: WorkflowIdParams,
      body: ExecuteWorkflowBody,
      success: {
        description: 'The execution record, ended',
        schema: ExecutionEnvelope,
        also: { 202: 'The execution record, still running (`wait: false`, or past `timeoutMs`)' },
      },
      handler: async ({ auth, params, body, res }) => {
        const answer = await executeWorkflowById(ctx, em(), auth, params.id, body);
        if (answer.running) res.status(202);
        return ok(answer.record);
      },
    })
    .route({
      method: 'post',
      path: '/workflows/:id/test',
      summary: 'Dry-run a workflow',
      description:
        'The same interpreter with no side effects: mcp_call and llm_prompt results come from `mocks` (null when absent, with a warning); no events, nothing in the history. With `nodes` and `edges`, a draft graph (not saved) is run instead of the saved one. An invalid definition or mock is a 400 listing every problem.',
      scope: 'workflows:write',
      params: WorkflowIdParams,
      body: DryRunBody,
      success: { description: 'The full trace', schema: DryRunEnvelope },
      handler: async ({ auth, params, body }) => ok(await dryRunWorkflow(em(), auth, params.id, body)),
    })
    .route({
      method: 'get',
      path: '/workflows/:id/versions',
      summary: 'Version history of a workflow',
      description:
        'Every saved definition (version 1 at creation, one more at each update), newest first. To restore one, PUT its name, trigger, nodes and edges: that saves them as a new version.',
      scope: 'workflows:read',
      params: WorkflowIdParams,
      query: ListVersionsQuery,
      success: { description: 'Versions, newest first', schema: WorkflowVersionList },
      handler: async ({ auth, params, query }) => {
        const { data, total } = await listVersions(em(), auth, params.id, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/workflows/:id/executions',
      summary: 'Execution history of a workflow',
      scope: 'workflows:read',
      params: WorkflowIdParams,
      query: ListExecutionsQuery,
      success: { description: 'Executions, newest first', schema: ExecutionList },
      handler: async ({ auth, params, query }) => {
        const { data, total } = await listExecutions(em(), auth, params.id, query);
        return paged(data, { total, limit: query.limit, offset: query.offset });
      },
    })
    .route({
      method: 'get',
      path: '/workflows/:id/executions/:executionId',
      summary: 'One execution, with every step',
      scope: 'workflows:read',
      params: ExecutionIdParams,
      success: { description: 'The execution record', schema: ExecutionEnvelope },
      handler: async ({ auth, params }) => ok(await getExecution(em(), auth, params.id, params.executionId)),
    });
}
