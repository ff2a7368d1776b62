import { raceEveryOperation } from '../support/concurrent-mutations';
import type { BaseEnv } from '../support/mutation-cases/fixtures';
import { platformCampaignCases } from '../support/mutation-cases/platform-campaigns';
import { type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let env: BaseEnv;
// The run's worker (global setup) runs the campaigns' workflows.
withAppAndDeveloper(
  (app: TestApp, dev: Developer) => {
    env = { app, dev };
  },
  { RATE_LIMITS: 'off' },
);

/** Issue 26 "Races on anything unique": campaigns, and their pause, resume and cancel. */
describe('concurrent identical mutations: campaigns', () => {
  raceEveryOperation(
    platformCampaignCases,
    () => env.app,
    () => env,
  );
});
