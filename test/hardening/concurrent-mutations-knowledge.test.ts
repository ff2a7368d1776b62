import { raceEveryOperation } from '../support/concurrent-mutations';
import type { BaseEnv } from '../support/mutation-cases/fixtures';
import { platformKnowledgeCases } from '../support/mutation-cases/platform-knowledge';
import { type Developer, type TestApp, withAppAndDeveloper } from '../support/test-app';

let env: BaseEnv;
// The run's worker (global setup) runs the sources' ingestion workflows.
withAppAndDeveloper(
  (app: TestApp, dev: Developer) => {
    env = { app, dev };
  },
  { RATE_LIMITS: 'off' },
);

/** Issue 26 "Races on anything unique": knowledge bases, their sources, a source's refresh. */
describe('concurrent identical mutations: knowledge bases', () => {
  raceEveryOperation(
    platformKnowledgeCases,
    () => env.app,
    () => env,
  );
});
