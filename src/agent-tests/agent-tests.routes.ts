import type { ApiRoots } from '../app/api-roots';
import type { AppContext } from '../common/context';
import { mountScenarioRoutes } from './scenarios.routes';

/** Agent tests' routes: scenarios on the console API; runs on the console and platform APIs. */
export function mountAgentTestRoutes(roots: ApiRoots, ctx: AppContext): void {
  mountScenarioRoutes(roots.console, ctx);
}
