import { raceEveryOperation } from '../support/concurrent-mutations';
import type { BaseEnv } from '../support/mutation-cases/fixtures';
import { platformRunCases } from '../support/mutation-cases/platform-runs';
import { type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let env: BaseEnv;
// The run's worker (global setup) runs the workflows and the sessions' turns, with its LLM double.
withAppAndDeveloper(
  (app: TestApp, dev: Developer) => {
    env = { app, dev };
  },
  { RATE_LIMITS: 'off', LLM_BASE_URL: process.env.VP_TEST_LLM_BASE_URL ?? '' },
);

/** Issue 26 "Races on anything unique": the platform API's voice workflows and sessions. */
describe('concurrent identical mutations: workflows and sessions', () => {
  raceEveryOperation(
    platformRunCases,
    () => env.app,
    () => env,
  );
});
