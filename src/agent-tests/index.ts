export { TestRun, TestRunResult, TestScenario } from './agent-test.entity';
export { mountAgentTestRoutes } from './agent-tests.routes';
