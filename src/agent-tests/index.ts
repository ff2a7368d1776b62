export { TestRun, TestRunResult, TestScenario } from './agent-test.entity';
export { mountAgentTestRoutes } from './agent-tests.routes';
export { createTestRunOutboxHandler } from './run-workflows';
export { testSessionDriver } from './scenario-steps';
