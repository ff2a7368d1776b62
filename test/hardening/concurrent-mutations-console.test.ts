import { raceEveryOperation } from '../support/concurrent-mutations';
import { consoleCases } from '../support/mutation-cases/console';
import type { BaseEnv } from '../support/mutation-cases/fixtures';
import { type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let env: BaseEnv;
withAppAndDeveloper(
  (app: TestApp, dev: Developer) => {
    env = { app, dev };
  },
  { RATE_LIMITS: 'off' },
);

/** Issue 26 "Races on anything unique": the console API and the operator's account and persona routes. */
describe('concurrent identical mutations: console and operator', () => {
  raceEveryOperation(
    consoleCases,
    () => env.app,
    () => env,
  );
});
