import type { ConsoleAuth } from '../accounts';
import type { AppContext } from '../common/context';
import type { ApiRoot } from '../http/api-router';
import {
  PersonaTestParams,
  ScenarioBody,
  ScenarioDeleted,
  ScenarioEnvelope,
  ScenarioList,
  ScenarioParams,
} from './scenario.schemas';
import {
  createScenario,
  deleteScenario,
  findScenario,
  listScenarios,
  scenarioView,
  updateScenario,
} from './scenarios.service';

const SCENARIO_DESCRIPTION =
  'A scenario is scripted caller `turns` (each with its own `expect`) or a `simulatedCaller` `{ goal, maxTurns ≤ 10 }`, with `mocks` (tool name → result: the tool is not called) and conversation `expectations`. See docs/personas.md "Testing an agent".';

/** A persona's test scenarios (console API, beside the persona): docs/personas.md "Testing an agent". */
export function mountScenarioRoutes(console: ApiRoot<ConsoleAuth>, ctx: AppContext): void {
  const em = () => ctx.orm.em;
  console
    .route({
      method: 'get',
      path: '/personas/:id/tests',
      summary: "List a persona's test scenarios",
      params: PersonaTestParams,
      success: { description: 'The scenarios, oldest first', schema: ScenarioList },
      handler: async ({ auth, params }) => ({
        scenarios: await listScenarios(em(), auth.account.id, params.id),
      }),
    })
    .route({
      method: 'post',
      path: '/personas/:id/tests',
      summary: 'Add a test scenario to a persona',
      description: `${SCENARIO_DESCRIPTION} At most 100 per persona (409 beyond).`,
      params: PersonaTestParams,
      body: ScenarioBody,
      success: { status: 201, description: 'The scenario', schema: ScenarioEnvelope },
      handler: async ({ auth, params, body }) => ({
        scenario: await createScenario(em(), auth.account.id, params.id, body),
      }),
    })
    .route({
      method: 'get',
      path: '/personas/:id/tests/:scenarioId',
      summary: 'Get a test scenario',
      params: ScenarioParams,
      success: { description: 'The scenario', schema: ScenarioEnvelope },
      handler: async ({ auth, params }) => ({
        scenario: scenarioView(await findScenario(em(), auth.account.id, params.id, params.scenarioId)),
      }),
    })
    .route({
      method: 'put',
      path: '/personas/:id/tests/:scenarioId',
      summary: 'Replace a test scenario',
      description: `${SCENARIO_DESCRIPTION} Runs already started keep the scenario as it was.`,
      params: ScenarioParams,
      body: ScenarioBody,
      success: { description: 'The scenario', schema: ScenarioEnvelope },
      handler: async ({ auth, params, body }) => ({
        scenario: await updateScenario(em(), auth.account.id, params.id, params.scenarioId, body),
      }),
    })
    .route({
      method: 'delete',
      path: '/personas/:id/tests/:scenarioId',
      summary: 'Delete a test scenario',
      params: ScenarioParams,
      success: { description: 'Deleted', schema: ScenarioDeleted },
      handler: ({ auth, params }) => deleteScenario(em(), auth.account.id, params.id, params.scenarioId),
    });
}
